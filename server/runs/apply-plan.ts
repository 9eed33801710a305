import { createVocabularyIndex } from '../dms/vocabulary-index.js';
import type { DmsClient, DmsDocument } from '../dms/types.js';
import { errorMessage } from '../errors.js';
import { hasWrite, patchField, planDocument, type ChangeField, type DocumentPlan } from './plan-changes.js';
import type { RecentWrites } from './recent-writes.js';
import { rebaseOnFresh, unchangedSince } from './replan-fresh.js';

/** What writing one plan did: which fields reached the dms, which failed and why. */
export interface ApplyOutcome {
  written: ChangeField[];
  failures: Partial<Record<ChangeField, string>>;
  /** Fields a person changed between the read and the write, left as they set them (with the reason). */
  superseded: Partial<Record<ChangeField, string>>;
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
 * Writes one plan: creates the names it may create, re-reads the document (a person may have edited it since
 * the rules read it: then the plan is redone on the fresh document), then writes by difference — one PATCH
 * for the scalar fields, bulk `modify_tags` for tags and `modify_custom_fields` for custom fields, which change
 * only what they name — then the notes. Never throws for a dms failure; failures are returned per field.
 */
export async function applyPlan(dms: DmsClient, plan: DocumentPlan, recentWrites?: RecentWrites): Promise<ApplyOutcome> {
  const outcome: ApplyOutcome = { written: [], failures: { ...plan.failures }, superseded: {}, dmsError: null };
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
      const index = createVocabularyIndex(await dms.vocabulary({ principals: plan.source.index.vocabulary.users !== undefined }));
      const { document, changes, createMissing } = plan.source;
      current = planDocument(document, changes, createMissing, index);
    } catch (err) {
      for (const { kind } of plan.create) failed(FIELDS_OF_KIND[kind], err);
    }
  }

  if (hasWrite(current)) {
    try {
      const fresh = await dms.getWriteState(plan.document);
      if (!unchangedSince(current.source.document, fresh)) {
        const rebased = rebaseOnFresh(current, fresh);
        outcome.superseded = rebased.superseded;
        for (const field of current.changed) {
          if (!rebased.plan.changed.includes(field))
            outcome.superseded[field] ??= `${field} already is as the rules want it: it was changed in the dms after the rules read the document.`;
        }
        current = rebased.plan;
      }
    } catch (err) {
      for (const field of current.changed) if (field !== 'notes') failed(field, err);
      return outcome;
    }
  }
  for (const [field, reason] of Object.entries(current.failures)) outcome.failures[field as ChangeField] ??= reason;

  // One mark before the first write and one settle after the last, so the loop breaker counts one write per
  // plan and the echo ledger keeps the state after all of it: the PATCH answer, or a read-back after a bulk edit.
  let marked = false;
  let answer: DmsDocument | undefined;
  const write = async (fields: ChangeField[], send: () => Promise<DmsDocument | undefined>) => {
    const open = fields.filter((f) => !outcome.failures[f]);
    if (open.length === 0) return;
    // Marked before the write: Paperless queues the "document updated" webhook inside the request.
    if (!marked) recentWrites?.mark(plan.document);
    marked = true;
    try {
      answer = await send();
      outcome.written.push(...open);
    } catch (err) {
      answer = undefined;
      for (const field of open) failed(field, err);
    }
  };

  const patch = { ...current.patch };
  const keys = Object.keys(patch) as Array<keyof typeof patch>;
  for (const key of keys) if (outcome.failures[patchField(key)]) delete patch[key];
  await write((Object.keys(patch) as Array<keyof typeof patch>).map(patchField), () => dms.updateDocument(plan.document, patch));
  const { tags, customFields } = current;
  if (tags) await write(['tags'], () => dms.bulkEdit([plan.document], 'modify_tags', { add_tags: tags.add, remove_tags: tags.remove }).then(() => undefined));
  if (customFields) {
    const add = Object.fromEntries(customFields.set.map((cf) => [cf.field, cf.value]));
    await write(['custom_fields'], () =>
      dms.bulkEdit([plan.document], 'modify_custom_fields', { add_custom_fields: add, remove_custom_fields: customFields.remove }).then(() => undefined),
    );
  }
  // What the dms stored is what its echo will show (read back unless the last write answered with it).
  if (marked) recentWrites?.settle(plan.document, answer);

  if (current.notes.length > 0 && !outcome.failures.notes) {
    try {
      for (const note of current.notes) await dms.addNote(plan.document, note);
      outcome.written.push('notes');
    } catch (err) {
      failed('notes', err);
    }
  }
  // Last, so the fields above are written to the document that goes to the trash (and come back with it).
  if (current.trash && !outcome.failures.trash) {
    try {
      await dms.trashDocument(plan.document);
      outcome.written.push('trash');
    } catch (err) {
      failed('trash', err);
    }
  }
  return outcome;
}
