import type { SuggestionCandidate } from '../suggest/suggestion-types.js';
import type { SuggestionVisibility } from '../suggest/visibility.js';

/** The record of one background job or webhook delivery (docs/jobs-and-webhook.md), as `GET /api/events/{id}` returns it. */

export const EVENT_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled', 'interrupted'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/**
 * `job`: one rule over all documents; `revert`: undo of a job; `webhook`: rules run for one document on a
 * dms call; `catchup`: the documents added or changed in the dms while the service was not listening;
 * `suggestion`: a rule learned from the documents a person labelled (docs/suggestions.md).
 */
export const EVENT_KINDS = ['job', 'revert', 'webhook', 'catchup', 'suggestion'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** What a finished job found, for a person deciding whether to run it for real. */
export interface JobReport {
  matched: number;
  /** Documents that would change (dry run) or did change (real run). */
  changed: number;
  unchanged: number;
  /** Field name → how many documents it changes. */
  fields: Record<string, number>;
  /** A few example diffs, in document order. */
  samples: Array<{ document: number; title: string; changes: Record<string, { from: unknown; to: unknown }> }>;
  /** Filter parameters sent to the dms to narrow the scan (empty: every document was read). */
  prefilter: Record<string, string>;
  /** Documents restored (revert) or skipped because a person changed the field since. */
  reverted?: number;
  skipped_edited?: number;
  /** Revert: documents not given back in full, by why (a field edited since, the document gone, the dms refused). */
  not_restored?: { edited: number; gone: number; refused: number };
  summary: string;
  /** Suggestion events: what the rules were learned for, and the candidates, most precise first. */
  target?: string;
  suggestions?: SuggestionCandidate[];
  /** Suggestion events: how much of the archive the token saw, and the warnings when not all of it. */
  visibility?: SuggestionVisibility;
}

export interface EventRecord {
  event_id: number;
  kind: EventKind;
  rule_id: string | null;
  dry_run: boolean;
  /** The document a webhook event is for. */
  document: number | null;
  /** The job a revert undoes. */
  reverts: number | null;
  status: EventStatus;
  /** Documents to process; null until the dms has told us. */
  total: number | null;
  processed: number;
  matched: number;
  changed: number;
  errors: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Links between events (absent in records written before they existed): the real job a dry run was applied as, */
  applied_as?: number | null;
  /** the dry run a real job applied, */
  applied_from?: number | null;
  /** and the revert that undid a real job. */
  undone_by?: number | null;
  /** Why the job failed or was interrupted. */
  error: string | null;
  report: JobReport | null;
  /** Webhook events: which rules the delivery selects (kept so a delivery survives a restart). */
  trigger?: 'added' | 'updated' | 'unknown' | null;
  /** Webhook events that merged deliveries of both kinds (`trigger: unknown`): each trigger, so the merged run survives a restart as itself. */
  triggers?: ('added' | 'updated' | 'unknown')[] | null;
  /** Rule jobs: the last document id fully processed (documents are read in id order), for resume. */
  resume_after?: number | null;
  /** A job that continues an interrupted one: the id of that job. */
  resumes?: number | null;
  /** Catch-up: what it found, and a failure waiting for its retry. */
  catchup?: {
    since: string;
    added: number;
    updated: number;
    skipped: number;
    /** Left to a webhook delivery already waiting for the same document (one run covers both). */
    merged?: number;
    /** Refused by the dms as often as the retry policy allows, and not changed since: not run again. */
    failed_before?: number;
    next_retry_at?: string | null;
  } | null;
}
