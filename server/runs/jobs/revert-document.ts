import { DmsNotFoundError } from '../../dms/dms-errors.js';
import type { DmsClient } from '../../dms/types.js';
import type { VocabularyIndex } from '../../dms/vocabulary-index.js';
import { ruleChanges } from '../../engine/document-views.js';
import type { RuleResult } from '../../engine/evaluate.js';
import type { ActionTrace, ConditionTrace, RuleDocument, Trace } from '../../engine/model.js';
import { errorMessage } from '../../error-message.js';
import type { EchoWrites } from '../echo/echo-writes.js';
import type { WriteJournal } from '../journal/write-journal.js';
import { writePlan } from '../pipeline/write-plan.js';
import type { DocumentPlan } from '../pipeline/plan-changes.js';
import { toRuleDocument } from '../documents/rule-document.js';
import { actionForField, toTrace } from '../pipeline/trace-outcome.js';
import { decideRestore, sentDelta, withDelta, type FieldCheck, type JobWrites } from './revert-plan.js';
import { untrash } from './revert-trash.js';

/** Why a document was not given back in full (the report counts documents per reason). */
export type NotRestored = 'edited' | 'gone' | 'refused';

export interface RevertedDocument {
  trace: Trace;
  title: string;
  /** Null: everything the event wrote is as it was before (restored now, or already). */
  notRestored: NotRestored | null;
  /** Something was (or, dry, would be) written. */
  wrote: boolean;
}

export interface RevertDocumentDeps {
  dms: DmsClient;
  echoes: EchoWrites;
  journal?: Pick<WriteJournal, 'begin'>;
  dmsKey: string;
  now: () => Date;
}

/** The field a check is about, as traces name it: `title`, `tags.Paid`, `custom_fields.Amount`, `permissions.view.users`. */
function label(check: FieldCheck, index: VocabularyIndex): string {
  if (check.item === undefined) return check.field;
  if (typeof check.item === 'string') return `${check.field}.${check.item}`;
  const name =
    check.field === 'tags' ? index.nameOf('tags', check.item) : (index.fieldById(check.item)?.name ?? undefined);
  return `${check.field}.${name ?? `#${check.item}`}`;
}

/** A field's value in a document's rule view, by its label. */
function valueAt(view: RuleDocument, field: string): unknown {
  const [head, ...rest] = field.split('.');
  const tail = rest.join('.');
  if (head === 'tags') return view.tags.some((t) => t.toLowerCase() === tail.toLowerCase());
  if (head === 'custom_fields') return view.custom_fields[tail] ?? null;
  if (head === 'permissions') {
    const [kind, target] = rest as ['view' | 'change', 'users' | 'groups'];
    return view.permissions?.[kind][target] ?? null;
  }
  return (view as unknown as Record<string, unknown>)[field] ?? null;
}

const DESCRIBE: Record<FieldCheck['verdict'], (field: string, event: number) => string> = {
  restore: (f, e) => `${f} still holds what event ${e} wrote: restore it`,
  as_before: (f, e) => `${f} already is as it was before event ${e}: nothing to do`,
  edited: (f, e) => `${f} was changed since event ${e}: leave it`,
  unrecorded: (f, e) => `${f} as it was before event ${e} is not in the write journal: leave it`,
};

/**
 * Gives one document back what the event found, from the event's journal records: a field is restored only
 * while it holds exactly what the event sent (a person's later edit is never overwritten), through the same
 * journaled write as a rule's. One trace, saying per field what was done and why.
 */
export async function revertDocument(
  deps: RevertDocumentDeps,
  index: VocabularyIndex,
  w: JobWrites,
  eventId: number,
  target: number,
  dryRun: boolean,
): Promise<RevertedDocument> {
  const ctx = { source: 'job' as const, eventId, document: w.document, dryRun, startedAt: deps.now().getTime() };
  // What the revert found and did, made a trace by the pipeline's own constructor once it is known.
  const result: RuleResult = {
    rule_id: w.rules[0] ?? '',
    file: '',
    status: 'skipped',
    conditions: [],
    extracted: { reverts_event: target },
    changes: {},
    actions: [],
    error: null,
  };
  const done = (notRestored: NotRestored | null, wrote: boolean, title = ''): RevertedDocument => ({
    trace: toTrace(result, { ...ctx, now: deps.now }),
    title,
    notRestored,
    wrote,
  });
  if (w.dms !== deps.dmsKey) {
    result.status = 'error';
    result.error = `Document ${w.document} was written in another dms than the one connected now; it was left alone.`;
    return done('gone', false);
  }
  try {
    if (w.trash && (await untrash(deps.dms, w.document, result, dryRun))) {
      result.status = 'matched';
      return done(null, true);
    }
    const doc = await deps.dms.getDocument(w.document);
    const decision = decideRestore(doc, w, (id) => index.fieldById(id));
    const nowView = toRuleDocument(doc, index);
    const sentView = toRuleDocument(withDelta(doc, sentDelta(w)), index);
    result.conditions.push(
      ...decision.checks.map((check): ConditionTrace => {
        const field = label(check, index);
        return {
          path: `revert/${field}`,
          description: DESCRIBE[check.verdict](field, target),
          field,
          expected: valueAt(sentView, field),
          actual: valueAt(nowView, field),
          result: check.verdict === 'restore' || check.verdict === 'as_before',
        };
      }),
    );
    Object.assign(result.changes, ruleChanges(nowView, toRuleDocument(withDelta(doc, decision), index)));
    const plan: DocumentPlan = {
      document: w.document,
      patch: decision.patch,
      tags: decision.tags,
      customFields: decision.customFields,
      create: [],
      notes: [],
      changed: decision.changed,
      failures: {},
      source: { document: doc, changes: {}, createMissing: {}, index },
    };
    let failures: Record<string, string> = {};
    let superseded: Record<string, string> = {};
    if (!dryRun && decision.changed.length > 0) {
      const outcome = await writePlan(deps.dms, plan, deps.echoes, {
        journal: deps.journal && {
          journal: deps.journal,
          dms: deps.dmsKey,
          event: eventId,
          source: 'job',
          rules: w.rules,
        },
      });
      failures = outcome.failures;
      superseded = outcome.superseded;
    }
    result.actions.push(
      ...decision.changed.map((f): ActionTrace => ({
        path: `revert/${f}`,
        action: actionForField(f),
        status: failures[f] ? 'failed' : superseded[f] ? 'unchanged' : dryRun ? 'planned' : 'applied',
        ...(failures[f] ? { error: failures[f] } : superseded[f] ? { detail: superseded[f] } : {}),
      })),
    );
    // The trace's changes are what was written: a field the dms refused, or found changed meanwhile, is not.
    for (const key of Object.keys(result.changes)) {
      const field = key.split('.')[0];
      if (failures[field] || superseded[field]) delete result.changes[key];
    }
    const failed = Object.values(failures);
    const wrote = decision.changed.some((f) => !failures[f] && !superseded[f]);
    result.status = failed.length ? 'error' : wrote || result.changes.trash ? 'matched' : 'skipped';
    result.error = failed.length ? failed.join(' ') : null;
    const edited =
      Object.keys(superseded).length > 0 ||
      decision.checks.some((c) => c.verdict === 'edited' || c.verdict === 'unrecorded');
    return done(
      failed.length ? 'refused' : edited ? 'edited' : null,
      wrote || result.changes.trash !== undefined,
      doc.title,
    );
  } catch (err) {
    result.status = 'error';
    const gone = err instanceof DmsNotFoundError;
    result.error = gone
      ? `Document ${w.document} is gone from the dms: ${errorMessage(err)}`
      : `Could not revert document ${w.document}: ${errorMessage(err)}`;
    return done(gone ? 'gone' : 'refused', false);
  }
}
