import { isDeepStrictEqual } from 'node:util';
import type { CustomFieldValue, DocumentChanges } from '../../engine/model.js';
import type { DmsDocument, DocumentWriteState } from '../../dms/types.js';
import { unknownName } from '../../dms/vocabulary-index.js';
import { planDocument, type ChangeField, type DocumentPlan } from './plan-changes.js';
import { dateOnly } from '../documents/rule-document.js';

/** The scalar fields the service writes by PATCH, compared one by one. */
export const SCALARS = [
  'title',
  'correspondent',
  'document_type',
  'storage_path',
  'created',
  'archive_serial_number',
  'owner',
] as const;

/** Two values of a scalar field alike as the dms stores them (a date by its day). */
export const sameScalar = (field: (typeof SCALARS)[number], a: unknown, b: unknown): boolean =>
  field === 'created'
    ? dateOnly(a as string | null) === dateOnly(b as string | null)
    : isDeepStrictEqual(a ?? null, b ?? null);

const sameSet = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

// Compared as sets; a document read without permissions (no rule needed them) has nothing to compare.
const samePermissions = (a: DmsDocument['permissions'], b: DmsDocument['permissions']): boolean =>
  !a ||
  !b ||
  (['view', 'change'] as const).every((k) => sameSet(a[k].users, b[k].users) && sameSet(a[k].groups, b[k].groups));

const fieldValues = (doc: Pick<DmsDocument, 'custom_fields'>): Map<number, unknown> =>
  new Map((doc.custom_fields ?? []).map((cf) => [cf.field, cf.value]));

/** True when nothing the service writes differs between the document it read and the one the dms holds now. */
export function unchangedSince(read: DmsDocument, now: DocumentWriteState): boolean {
  return (
    SCALARS.every((f) => sameScalar(f, read[f], now[f])) &&
    sameSet(read.tags, now.tags) &&
    isDeepStrictEqual(fieldValues(read), fieldValues(now)) &&
    (read.notes ?? []).length === (now.notes ?? []).length &&
    samePermissions(read.permissions, now.permissions)
  );
}

export interface Rebased {
  plan: DocumentPlan;
  /** Fields a person changed since the read, which the rules also set: left as the person set them. */
  superseded: Partial<Record<ChangeField, string>>;
}

/**
 * Re-plans a write on the document as it is now, after a person changed it since the rules read it. The rules'
 * tag additions and removals are kept as a difference (so the person's tags stay); a scalar field or custom
 * field the person changed is left as they set it (their edit's own webhook runs the rules again).
 */
export function rebaseOnFresh(plan: DocumentPlan, fresh: DocumentWriteState): Rebased {
  const { document: read, changes, createMissing, index } = plan.source;
  const now: DmsDocument = { ...read, ...fresh };
  const next: DocumentChanges = { ...changes };
  const superseded: Rebased['superseded'] = {};
  const note = (field: ChangeField, what: string) => {
    superseded[field] = superseded[field] ? `${superseded[field]} ${what}` : what;
  };

  for (const field of SCALARS) {
    if (next[field] === undefined || sameScalar(field, read[field], now[field])) continue;
    delete next[field];
    note(field, `${field} was changed in the dms after the rules read the document; left as it is now.`);
  }

  if (changes.tags !== undefined) {
    const name = (id: number) => (index.nameOf('tags', id) ?? unknownName(id)).toLowerCase();
    const readNames = read.tags.map(name);
    const wanted = changes.tags.map((t) => t.trim().toLowerCase());
    const removed = new Set(readNames.filter((t) => !wanted.includes(t)));
    const added = changes.tags.filter((t) => !readNames.includes(t.trim().toLowerCase()));
    next.tags = [
      ...now.tags.map((id) => index.nameOf('tags', id) ?? unknownName(id)).filter((t) => !removed.has(t.toLowerCase())),
      ...added,
    ];
  }

  if (changes.permissions !== undefined && !samePermissions(read.permissions, now.permissions)) {
    delete next.permissions;
    note(
      'permissions',
      'The permissions were changed in the dms after the rules read the document; left as they are now.',
    );
  }

  if (changes.custom_fields !== undefined) {
    const before = fieldValues(read);
    const after = fieldValues(now);
    const kept: Record<string, CustomFieldValue> = {};
    for (const [fieldName, value] of Object.entries(changes.custom_fields)) {
      const id = index.field(fieldName)?.id;
      if (id !== undefined && (before.has(id) !== after.has(id) || !isDeepStrictEqual(before.get(id), after.get(id)))) {
        note(
          'custom_fields',
          `Custom field "${fieldName}" was changed in the dms after the rules read the document; left as it is now.`,
        );
      } else kept[fieldName] = value;
    }
    next.custom_fields = kept;
  }

  return { plan: planDocument(now, next, createMissing, index), superseded };
}
