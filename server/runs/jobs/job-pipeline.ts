import type { DmsDocument } from '../../dms/types.js';
import type { FieldChange } from '../../engine/model.js';
import type { DocumentPlan } from '../plan-changes.js';

/** A plan's writes: scalar fields (one PATCH), tags and custom fields as differences. */
export type DocumentWrite = Pick<DocumentPlan, 'patch' | 'tags' | 'customFields'>;

/**
 * What background jobs need from the one run pipeline (`server/runs/`): planning and applying are
 * separate steps so a job can group identical writes into dms bulk edits between them.
 */
export interface PlannedDocument {
  document: DmsDocument;
  matched: boolean;
  /** Field → from/to in names, as traces and reports show them. */
  changes: Record<string, FieldChange>;
  /** The difference still to write; null when the document already is what the rule wants. */
  write: DocumentWrite | null;
  /** Whether anything else must be written that a bulk edit cannot do (notes, creating names…). */
  needsSingleApply: boolean;
  /** Evaluation failed; the trace records it and the job goes on. */
  error: string | null;
}

export interface JobContext {
  eventId: number;
  dryRun: boolean;
  source: 'job' | 'webhook';
}

/** What actually happened to a plan: written by a bulk edit, by its own PATCH, not at all, or failed. */
export type ApplyOutcome = { kind: 'bulk' } | { kind: 'single' } | { kind: 'none' } | { kind: 'failed'; error: string };

export interface JobPipeline {
  plan(ruleId: string, document: DmsDocument, ctx: JobContext): Promise<PlannedDocument>;
  /** Writes one plan on its own (PATCH, notes, …); throws a DmsError when the dms refuses. */
  applyOne(planned: PlannedDocument, ctx: JobContext): Promise<void>;
  /** Records the one trace for this rule and document with the outcome of applying it. */
  record(ruleId: string, planned: PlannedDocument, outcome: ApplyOutcome, ctx: JobContext): Promise<void>;
}
