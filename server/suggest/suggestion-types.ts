/** A document named in a suggestion's figures. */
export interface SuggestedDocument {
  id: number;
  title: string;
}

/** One candidate rule of `report.suggestions` (docs/suggestions.md). */
export interface SuggestionCandidate {
  /** A complete rule file holding the one rule, with `tests:` from real documents. */
  yaml: string;
  rule_id: string;
  variant: 'precise' | 'balanced' | 'broad';
  /** Over the whole archive, as the engine a job uses matched the rule. */
  precision: number;
  recall: number;
  matched: number;
  labelled: number;
  /** On documents the learner did not see. */
  holdout: { precision: number; recall: number; method: string };
  /** Documents it matches without the label (the first 20), and how many in all. */
  would_add: SuggestedDocument[];
  would_add_count: number;
  /** Labelled documents it does not match (the first 20), and how many in all. */
  would_miss: SuggestedDocument[];
  would_miss_count: number;
}
