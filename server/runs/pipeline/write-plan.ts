import { createVocabularyIndex } from '../../dms/vocabulary-index.js';
import { isGivenAway, splitGiveAway } from '../../dms/release-writes.js';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import { hasWrite, patchField, planDocument, type ChangeField, type DocumentPlan } from './plan-changes.js';
import type { CreationGate } from './creation-guard.js';
import type { RunSideEffects } from '../intents/side-effects.js';
import type { EchoWrites } from '../echo/echo-writes.js';
import { rebaseOnFresh, unchangedSince } from './replan-fresh.js';
import type { ApplyOutcome } from './apply-outcome.js';
import type { JournalWrite } from '../journal/journal-records.js';
import { fieldsOf, newNoteId, readValuesOf } from '../journal/journal-records.js';
import { answerUnknown } from '../journal/reconcile.js';
import type { RunHandle, WriteJournal } from '../journal/write-journal.js';

const FIELDS_OF_KIND: Record<string, ChangeField> = {
  tags: 'tags',
  correspondents: 'correspondent',
  document_types: 'document_type',
  storage_paths: 'storage_path',
};

/** What a run adds to the write: the cap on names it may create, and notes as durable intents. */
export interface ApplyExtras {
  creations?: CreationGate;
  sideEffects?: Pick<RunSideEffects, 'prepare' | 'writeNotes'>;
  /** Where the writes are recorded before they are sent; without it (tests of the write alone) nothing is. */
  journal?: JournalContext;
}

/** The write journal and what a run's record names besides its writes. */
export interface JournalContext {
  journal: Pick<WriteJournal, 'begin'>;
  dms: string;
  event: number | null;
  source: string;
  rules: string[];
  /** The document's `added` time when the run is its `added` arrival. */
  added?: string;
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

  // Notes too: another path (a job, the other arrival of the same change) may have added the note since the read.
  if (hasWrite(current) || current.notes.length > 0) {
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
      for (const field of current.changed) failed(field, err);
      return outcome;
    }
  }
  for (const [field, reason] of Object.entries(current.failures)) outcome.failures[field as ChangeField] ??= reason;

  const patch = { ...current.patch };
  const keys = Object.keys(patch) as Array<keyof typeof patch>;
  for (const key of keys) if (outcome.failures[patchField(key)]) delete patch[key];
  // Giving the document away goes last: afterwards the token may write it no more (release-writes.ts).
  const { first, last } = splitGiveAway(patch);
  const { tags, customFields } = current;
  const notes = current.notes.length > 0 && !outcome.failures.notes ? current.notes : [];
  const trash = current.trash === true && !outcome.failures.trash;

  // Every request this plan sends, recorded (and synced) before the first leaves: a kill anywhere after is
  // reconciled at start from this record, never sent blindly again (runs/journal/).
  const requests: JournalWrite[] = [];
  const slot = (write: JournalWrite) => requests.push(write) - 1;
  const open = (fields: ChangeField[]) => fields.some((f) => !outcome.failures[f]);
  const firstAt = open(Object.keys(first).map((k) => patchField(k as keyof typeof first)))
    ? slot({ kind: 'patch', patch: first })
    : -1;
  const tagsAt = tags && open(['tags']) ? slot({ kind: 'tags', add: tags.add, remove: tags.remove }) : -1;
  const fieldsAt =
    customFields && open(['custom_fields'])
      ? slot({ kind: 'custom_fields', set: customFields.set, remove: customFields.remove })
      : -1;
  const notesAt = notes.map((text) => slot({ kind: 'note', text }));
  const lastAt =
    last && open(Object.keys(last).map((k) => patchField(k as keyof typeof last)))
      ? slot({ kind: 'patch', patch: last })
      : -1;
  const trashAt = trash ? slot({ kind: 'trash' }) : -1;
  if (sideEffects && requests.length > 0) {
    try {
      await sideEffects.prepare(notes, requests.flatMap(fieldsOf) as ChangeField[]);
    } catch (err) {
      // Nothing is sent before what it sets off is recorded.
      for (const field of current.changed) failed(field, err);
      return outcome;
    }
  }
  let journaled: RunHandle | null = null;
  if (extras.journal && requests.length > 0) {
    const { journal: store, ...names } = extras.journal;
    try {
      [journaled] = await store.begin([
        { ...names, doc: plan.document, read: readValuesOf(current.source.document), writes: requests },
      ]);
    } catch (err) {
      // Nothing is sent that is not recorded first.
      for (const field of current.changed) failed(field, err);
      return outcome;
    }
  }
  const settled: Array<boolean | undefined> = [];
  let unanswered = false;
  const noted = (i: number, ok: boolean, error?: unknown, note?: number) => {
    if (i < 0) return;
    settled[i] = ok;
    if (!ok && answerUnknown(error)) {
      unanswered = true;
      return;
    }
    journaled?.outcome(i, {
      ok,
      ...(error === undefined ? {} : { error: errorMessage(error) }),
      ...(note === undefined ? {} : { note }),
    });
  };

  // One mark before the first write and one settle after the last, so the loop breaker counts one write per
  // plan and the echo ledger keeps the state after all of it: the PATCH answer, or a read-back after a bulk edit.
  let marked = false;
  let answer: DmsDocument | undefined;
  const write = async (at: number, fields: ChangeField[], send: () => Promise<DmsDocument | undefined>) => {
    const open = fields.filter((f) => !outcome.failures[f]);
    if (open.length === 0 || at < 0) return;
    // Marked before the write: Paperless queues the "document updated" webhook inside the request.
    if (!marked) echoes?.mark(plan.document);
    marked = true;
    try {
      answer = await send();
      outcome.written.push(...open);
      noted(at, true);
    } catch (err) {
      answer = undefined;
      for (const field of open) failed(field, err);
      noted(at, false, err);
    }
  };

  await write(firstAt, (Object.keys(first) as Array<keyof typeof first>).map(patchField), () =>
    dms.updateDocument(plan.document, first),
  );
  if (tags)
    await write(tagsAt, ['tags'], () =>
      dms
        .bulkEdit([plan.document], 'modify_tags', { add_tags: tags.add, remove_tags: tags.remove })
        .then(() => undefined),
    );
  if (customFields) {
    const add = Object.fromEntries(customFields.set.map((cf) => [cf.field, cf.value]));
    await write(fieldsAt, ['custom_fields'], () =>
      dms
        .bulkEdit([plan.document], 'modify_custom_fields', {
          add_custom_fields: add,
          remove_custom_fields: customFields.remove,
        })
        .then(() => undefined),
    );
  }
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
    notesAt.forEach((at, i) => {
      const id = added.noteIds[notes[i]];
      // A note its intent says was added already (an earlier run of this change) is in the dms: applied.
      noted(at, true, undefined, id);
    });
    if (added.added > 0) {
      outcome.written.push('notes');
      // The PATCH answer predates the notes: the state to remember is read back.
      answer = undefined;
    } else if (added.skipped) outcome.superseded.notes = added.skipped;
  } catch (err) {
    failed('notes', err);
    for (const at of notesAt) noted(at, false, err);
  }
  if (last) {
    await write(lastAt, (Object.keys(last) as Array<keyof typeof last>).map(patchField), () =>
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
  if (trash) {
    try {
      await dms.trashDocument(plan.document);
      outcome.written.push('trash');
      noted(trashAt, true);
    } catch (err) {
      failed('trash', err);
      noted(trashAt, false, err);
    }
  }
  if (journaled && !unanswered) {
    const ok = requests.map((_, i) => settled.at(i) ?? false);
    journaled.end(ok.every(Boolean) ? 'applied' : ok.some(Boolean) ? 'partial' : 'not_applied');
  }
  return outcome;
}

async function addNotes(
  dms: DmsClient,
  document: number,
  notes: readonly string[],
): Promise<{ added: number; skipped: null; noteIds: Record<string, number> }> {
  const noteIds: Record<string, number> = {};
  const before = new Set<number>();
  for (const note of notes) {
    const after = await dms.addNote(document, note);
    const id = newNoteId(after, before, note);
    if (id !== undefined) noteIds[note] = id;
    for (const n of after) before.add(n.id);
  }
  return { added: notes.length, skipped: null, noteIds };
}
