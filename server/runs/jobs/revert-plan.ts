import { isDeepStrictEqual } from 'node:util';
import type {
  CustomFieldValue,
  DocumentChanges,
  PermissionKind,
  PermissionTarget,
  RuleDocument,
  Trace,
} from '../../engine/model.js';
import { dateOnly } from '../rule-document.js';
import { clonePermissions, sameNameSet } from '../../engine/permissions.js';

/** What one job did to one document, merged over its traces: the first `from` and the last `to` per field. */
export interface WrittenChange {
  document: number;
  rule_id: string;
  /** Custom fields: null is "not attached"; `empty` names the sides where the field was attached with no value. */
  fields: Record<string, { from: unknown; to: unknown; empty?: 'from' | 'to' | 'both' }>;
}

/** The per-document changes a job really wrote (real runs, at least one action applied), oldest first. */
export function writtenChanges(traces: Trace[]): WrittenChange[] {
  const byDoc = new Map<number, WrittenChange>();
  // The history answers newest first; merge oldest first so "from" is the value before the job.
  for (const trace of [...traces].reverse()) {
    if (trace.dry_run || !trace.actions.some((a) => a.status === 'applied')) continue;
    const entry = byDoc.get(trace.document) ?? { document: trace.document, rule_id: trace.rule_id, fields: {} };
    for (const [field, change] of Object.entries(trace.changes)) {
      if (field === 'notes') continue; // notes are added, never replaced: nothing to restore
      const prior = entry.fields[field];
      const fromEmpty = prior ? prior.empty === 'from' || prior.empty === 'both' : change.empty === 'from';
      const toEmpty = change.empty === 'to';
      entry.fields[field] = { from: prior ? prior.from : change.from, to: change.to };
      if (fromEmpty || toEmpty) entry.fields[field].empty = fromEmpty && toEmpty ? 'both' : fromEmpty ? 'from' : 'to';
    }
    if (Object.keys(entry.fields).length) byDoc.set(trace.document, entry);
  }
  return [...byDoc.values()];
}

export interface RevertDecision {
  changes: DocumentChanges;
  /** Field → whether it still held the job's value (and so is restored). */
  checked: Record<string, { expected: unknown; actual: unknown; restore: boolean }>;
}

/**
 * Decides what to restore on one document: a field goes back to its value before the job only while it
 * still holds exactly what the job wrote, so a later edit by a person is never overwritten. Tags are
 * undone one by one: a tag the job added is removed if still there, a tag it removed comes back.
 */
export function decideRevert(current: RuleDocument, written: WrittenChange): RevertDecision {
  const changes: DocumentChanges = {};
  const checked: RevertDecision['checked'] = {};
  for (const [field, { from, to }] of Object.entries(written.fields)) {
    if (field === 'tags') {
      const lower = (xs: unknown) => (Array.isArray(xs) ? xs.map((x) => String(x).toLowerCase()) : []);
      const added = new Set(lower(to).filter((t) => !lower(from).includes(t)));
      const removed = (Array.isArray(from) ? (from as string[]) : []).filter(
        (t) => !lower(to).includes(t.toLowerCase()),
      );
      const kept = current.tags.filter((t) => !added.has(t.toLowerCase()));
      const restoredTags = [...kept, ...removed.filter((t) => !kept.some((k) => k.toLowerCase() === t.toLowerCase()))];
      const restore = !sameTags(restoredTags, current.tags);
      checked.tags = { expected: to, actual: current.tags, restore };
      if (restore) changes.tags = restoredTags;
      continue;
    }
    if (field === 'custom_fields' || field.startsWith('custom_fields.')) {
      // [name, value before, attached before, value written, attached after]
      const empty = written.fields[field].empty;
      const pairs: Array<[string, unknown, boolean, unknown, boolean]> =
        field === 'custom_fields'
          ? Object.keys(asRecord(to)).map((name) => [
              name,
              asRecord(from)[name],
              name in asRecord(from),
              asRecord(to)[name],
              true,
            ])
          : [
              [
                field.slice('custom_fields.'.length),
                from,
                from !== null || empty === 'from' || empty === 'both',
                to,
                to !== null || empty === 'to' || empty === 'both',
              ],
            ];
      for (const [name, before, wasAttached, after, isAttached] of pairs) {
        const attached = Object.prototype.hasOwnProperty.call(current.custom_fields, name);
        const actual = current.custom_fields[name];
        const holdsJobValue = attached === isAttached && isDeepStrictEqual(actual ?? null, after ?? null);
        const restore =
          holdsJobValue && (wasAttached !== isAttached || !isDeepStrictEqual(before ?? null, after ?? null));
        checked[`custom_fields.${name}`] = { expected: after, actual, restore };
        if (!restore) continue;
        // A field the job attached is detached again, not left attached with an empty value.
        if (wasAttached) (changes.custom_fields ??= {})[name] = (before ?? null) as CustomFieldValue;
        else (changes.remove_custom_fields ??= []).push(name);
      }
      continue;
    }
    const list = /^permissions\.(view|change)\.(users|groups)$/.exec(field);
    if (list) {
      const [kind, target] = [list[1] as PermissionKind, list[2] as PermissionTarget];
      const actual = current.permissions?.[kind][target] ?? [];
      const restore = current.permissions !== null && sameNameSet(actual, asNames(to));
      checked[field] = { expected: to, actual, restore };
      if (restore) (changes.permissions ??= clonePermissions(current.permissions!))[kind][target] = asNames(from);
      continue;
    }
    const actual = (current as unknown as Record<string, unknown>)[field];
    const restore = sameValue(field, actual, to);
    checked[field] = { expected: to, actual, restore };
    if (restore) (changes as Record<string, unknown>)[field] = from;
  }
  return { changes, checked };
}

function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (field === 'created') return dateOnly(a as string | null) === dateOnly(b as string | null);
  if (
    typeof a === 'string' &&
    typeof b === 'string' &&
    ['correspondent', 'document_type', 'storage_path', 'owner'].includes(field)
  ) {
    return a.trim().toLowerCase() === b.trim().toLowerCase();
  }
  return isDeepStrictEqual(a ?? null, b ?? null);
}

function sameTags(a: string[], b: string[]): boolean {
  const norm = (xs: string[]) => [...new Set(xs.map((x) => x.toLowerCase()))].sort();
  return isDeepStrictEqual(norm(a), norm(b));
}

const asNames = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
