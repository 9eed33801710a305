import { createVocabularyIndex } from '../../dms/vocabulary-index.js';
import { isGivenAway, splitGiveAway } from '../../dms/release-writes.js';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import { hasWrite, patchField, planDocument, type ChangeField, type DocumentPlan } from '../plan-changes.js';
import type { CreationGate } from '../creation-guard.js';
import type { RunSideEffects } from '../intents/side-effects.js';
import type { EchoWrites } from '../echo-writes.js';
import { rebaseOnFresh, unchangedSince } from '../replan-fresh.js';
import type { ApplyOutcome } from './apply-outcome.js';

const FIELDS_OF_KIND: Record<string, ChangeField> = {
  tags: 'tags',
  correspondents: 'correspondent',
  document_types: 'document_type',
  storage_paths: 'storage_path',
};

/** What a run adds to the write: the cap on names it may create, and notes as durable intents. */
export interface ApplyExtras {
  creations?: CreationGate;
  sideEffects?: Pick<RunSideEffects, 'writeNotes'>;
}

/**
 * Writes one plan: creates the names it may create, re-reads the document (a person may have edited it since
 * the rules read it: then the plan is redone on the fresh document), then writes by difference — one PATCH
 * for the scalar fields, bulk `modify_tags` for tags and `modify_custom_fields` for custom fields, which change
 * only what they name — then the notes. Never throws for a dms failure; failures are returned per field.
 */
export async function writePlan(
  dms: DmsClient,
  plan: DocumentPlan,
  echoes?: EchoWrites,
  extras: ApplyExtras = {},
): Promise<ApplyOutcome> {
  const { creations, sideEffects } = extras;
  const outcome: ApplyOutcome = { written: [], failures: { ...plan.failures }, superseded: {}, dmsError: null };
  const failed = (field: ChangeField, err: unknown) => {
    outcome.failures[field] = `The dms refused the change: ${errorMessage(err)}`;
    outcome.dmsError ??= err instanceof Error ? err : new Error(String(err));
  };

  let current = plan;
  if (plan.create.length > 0) {
    for (const { kind, name, path } of plan.create) {
      const refused = creations?.admit(kind, name);
      if (refused) {
        outcome.failures[FIELDS_OF_KIND[kind]] = refused;
        continue;
      }
      try {
        await dms.createObject(kind, name, path);
      } catch (err) {
        failed(FIELDS_OF_KIND[kind], err);
      }
    }
    try {
      // The client refreshes its vocabulary after creating, so the names resolve now.
      const index = createVocabularyIndex(
        await dms.vocabulary({ principals: plan.source.index.vocabulary.users !== undefined }),
      );
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
            outcome.superseded[field] ??=
              `${field} already is as the rules want it: it was changed in the dms after the rules read the document.`;
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
    if (!marked) echoes?.mark(plan.document);
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
  // Giving the document away goes last: afterwards the token may write it no more (release-writes.ts).
  const { first, last } = splitGiveAway(patch);
  await write((Object.keys(first) as Array<keyof typeof first>).map(patchField), () =>
    dms.updateDocument(plan.document, first),
  );
  const { tags, customFields } = current;
  if (tags)
    await write(['tags'], () =>
      dms
        .bulkEdit([plan.document], 'modify_tags', { add_tags: tags.add, remove_tags: tags.remove })
        .then(() => undefined),
    );
  if (customFields) {
    const add = Object.fromEntries(customFields.set.map((cf) => [cf.field, cf.value]));
    await write(['custom_fields'], () =>
      dms
        .bulkEdit([plan.document], 'modify_custom_fields', {
          add_custom_fields: add,
          remove_custom_fields: customFields.remove,
        })
        .then(() => undefined),
    );
  }
  const notes = current.notes.length > 0 && !outcome.failures.notes ? current.notes : [];
  // Notes are part of the write: the state read back after it includes them, so their echo is recognised.
  if (notes.length > 0 && !marked) {
    echoes?.mark(plan.document);
    marked = true;
  }
  try {
    // With side effects, notes (and the notifications this write sets off) are durable intents (runs/intents).
    const added = sideEffects
      ? await sideEffects.writeNotes(notes, outcome.written)
      : await addNotes(dms, plan.document, notes);
    if (added.added > 0) {
      outcome.written.push('notes');
      // The PATCH answer predates the notes: the state to remember is read back.
      answer = undefined;
    } else if (added.skipped) outcome.superseded.notes = added.skipped;
  } catch (err) {
    failed('notes', err);
  }
  if (last) {
    await write((Object.keys(last) as Array<keyof typeof last>).map(patchField), () =>
      dms.updateDocument(plan.document, last),
    );
    if (isGivenAway(answer)) {
      outcome.givenAway = `applied; the document now belongs to user ${String(answer.owner)} and the dms token may no longer see it (Paperless 2.x answered 404 after storing it)`;
      // The trace shows an applied field's `superseded` text as its detail.
      outcome.superseded[patchField('owner')] = outcome.givenAway;
    }
  }
  // What the dms stored is what its echo will show (read back unless the last write answered with it); a
  // field the plan did not touch that changed meanwhile is a person's, and keeps that state from counting as own.
  if (marked && outcome.written.length === 0) echoes?.refused(plan.document);
  // Compared with the document the rules read (not a re-read it was rebased on): what changed since, unwritten, was not the service.
  else if (marked) echoes?.settle(plan.document, answer, { before: plan.source.document, fields: current.changed });
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

async function addNotes(
  dms: DmsClient,
  document: number,
  notes: readonly string[],
): Promise<{ added: number; skipped: null }> {
  for (const note of notes) await dms.addNote(document, note);
  return { added: notes.length, skipped: null };
}
