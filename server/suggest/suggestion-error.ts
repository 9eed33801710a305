/** Why a suggestion found no rule, said so a person knows what to do (it becomes the event's `error`). */
export class SuggestionError extends Error {}
