import { createVocabularyIndex } from '../dms/vocabulary-index.js';
import type { DmsClient } from '../dms/types.js';
import { errorMessage } from '../errors.js';
import { planDocument, type ChangeField, type DocumentPlan } from './plan-changes.js';
import type { RecentWrites } from './recent-writes.js';

/** What writing one plan did: which fields reached the dms, which failed and why. */
export interface ApplyOutcome {
  written: ChangeField[];
  failures: Partial<Record<ChangeField, string>>;
  /** The first dms error (for a synchronous run's 502); null when the dms accepted everything. */
  dmsError: Error | null;
}

const FIELDS_OF_KIND: Record<string, ChangeField> = {
  tags: 'tags',
  correspondents: 'correspondent',
  document_types: 'document_type',
  storage_paths: 'storage_path',
};

/**
 * Writes one plan: creates the names it may create, then one PATCH with only what differs, then the notes.
 * Never throws for a dms failure; the failure is returned per field so every trace can say what happened.
 */
export async function applyPlan(dms: DmsClient, plan: DocumentPlan, recentWrites?: RecentWrites): Promise<ApplyOutcome> {
  const outcome: ApplyOutcome = { written: [], failures: { ...plan.failures }, dmsError: null };
  const failed = (field: ChangeField, err: unknown) => {
    outcome.failures[field] = `The dms refused the change: ${errorMessage(err)}`;
    outcome.dmsError ??= err instanceof Error ? err : new Error(String(err));
  };

  let current = plan;
  if (plan.create.length > 0) {
    for (const { kind, name, path } of plan.create) {
      try {
        await dms.createObject(kind, name, path);
      } catch (err) {
        failed(FIELDS_OF_KIND[kind], err);
      }
    }
    try {
      // The client refreshes its vocabulary after creating, so the names resolve now.
      const index = createVocabularyIndex(await dms.vocabulary());
      const { document, changes, createMissing } = plan.source;
      current = planDocument(document, changes, createMissing, index);
    } catch (err) {
      for (const { kind } of plan.create) failed(FIELDS_OF_KIND[kind], err);
    }
  }

  const patch = { ...current.patch };
  for (const field of Object.keys(outcome.failures) as ChangeField[]) delete patch[field as keyof typeof patch];
  for (const [field, reason] of Object.entries(current.failures)) outcome.failures[field as ChangeField] ??= reason;

  const patchFields = Object.keys(patch) as ChangeField[];
  if (patchFields.length > 0) {
    // Marked before the write: Paperless queues the "document updated" webhook inside the PATCH request.
    recentWrites?.mark(plan.document);
    try {
      await dms.updateDocument(plan.document, patch);
      outcome.written.push(...patchFields);
    } catch (err) {
      for (const field of patchFields) failed(field, err);
    }
  }

  if (current.notes.length > 0 && !outcome.failures.notes) {
    try {
      for (const note of current.notes) await dms.addNote(plan.document, note);
      outcome.written.push('notes');
    } catch (err) {
      failed('notes', err);
    }
  }
  return outcome;
}
