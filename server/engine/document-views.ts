/** Views of a document: what templates see, and the differences between two versions. */
import type { CustomFieldValue, DocumentChanges, FieldChange, RuleDocument } from './model.js';
import type { ExtractedValue } from './extraction.js';
import { isMoneyValue } from './parse-number.js';
import { MoneyDrop } from './money-drop.js';
import { sameCustomValue } from './custom-field-values.js';
import { clonePermissions, permissionChanges } from './permissions.js';

/** Typed values render canonically in templates: money as a plain decimal with two places, with `.amount` and `.currency`. */
export function templateValue(v: ExtractedValue | CustomFieldValue): unknown {
  if (Array.isArray(v)) return v.map((x) => (isMoneyValue(x) ? new MoneyDrop(x) : x));
  if (isMoneyValue(v)) return new MoneyDrop(v);
  return v;
}

export function templateDocument(doc: RuleDocument): Record<string, unknown> {
  const custom: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc.custom_fields)) custom[k] = templateValue(v);
  return { ...doc, custom_fields: custom };
}

const sameTags = (a: string[], b: string[]): boolean => a.length === b.length && a.every((t) => b.includes(t));

/** The merged plan: final value per field that differs from the input; `notes` are the notes to add. */
export function diffDocuments(before: RuleDocument, after: RuleDocument): DocumentChanges {
  const c: DocumentChanges = {};
  if (before.title !== after.title) c.title = after.title;
  if (before.correspondent !== after.correspondent) c.correspondent = after.correspondent;
  if (before.document_type !== after.document_type) c.document_type = after.document_type;
  if (before.storage_path !== after.storage_path) c.storage_path = after.storage_path;
  if (!sameTags(before.tags, after.tags)) c.tags = [...after.tags];
  if ((before.created ?? '').slice(0, 10) !== (after.created ?? '').slice(0, 10) && after.created)
    c.created = after.created;
  if (before.archive_serial_number !== after.archive_serial_number)
    c.archive_serial_number = after.archive_serial_number;
  const custom: Record<string, CustomFieldValue> = {};
  for (const [k, v] of Object.entries(after.custom_fields)) {
    const had = Object.prototype.hasOwnProperty.call(before.custom_fields, k);
    if (!had || !sameCustomValue(before.custom_fields[k], v)) custom[k] = v;
  }
  if (Object.keys(custom).length) c.custom_fields = custom;
  const detached = Object.keys(before.custom_fields).filter(
    (k) => !Object.prototype.hasOwnProperty.call(after.custom_fields, k),
  );
  if (detached.length) c.remove_custom_fields = detached;
  const notes = after.notes.slice(before.notes.length);
  if (notes.length) c.notes = notes;
  if (
    (before.owner ?? '').toLocaleLowerCase() !== (after.owner ?? '').toLocaleLowerCase() ||
    (before.owner === null) !== (after.owner === null)
  )
    c.owner = after.owner;
  if (after.permissions && Object.keys(permissionChanges(before.permissions, after.permissions)).length)
    c.permissions = clonePermissions(after.permissions);
  if (after.trashed && !before.trashed) c.trash = true;
  return c;
}

/**
 * A custom field's change as from → to. Null stands for "not attached"; `empty` names the side where the field
 * is attached but has no value, so an undo can tell "detach it again" from "clear its value".
 */
export function customFieldChange(
  before: Record<string, CustomFieldValue>,
  after: Record<string, CustomFieldValue>,
  name: string,
): FieldChange {
  const change: FieldChange = { from: before[name] ?? null, to: after[name] ?? null };
  if (before[name] === null) change.empty = 'from';
  else if (after[name] === null) change.empty = 'to';
  return change;
}

/** One rule's changes as from → to per field (`custom_fields.X` for custom fields). */
export function ruleChanges(before: RuleDocument, after: RuleDocument): Record<string, FieldChange> {
  const diff = diffDocuments(before, after);
  const out: Record<string, FieldChange> = {};
  for (const [field, to] of Object.entries(diff)) {
    if (field === 'custom_fields' || field === 'remove_custom_fields') {
      const names = field === 'custom_fields' ? Object.keys(to as Record<string, CustomFieldValue>) : (to as string[]);
      for (const k of names)
        out[`custom_fields.${k}`] = customFieldChange(before.custom_fields, after.custom_fields, k);
    } else if (field === 'notes') out.notes = { from: null, to };
    else if (field === 'trash') out.trash = { from: false, to: true };
    else if (field === 'permissions') Object.assign(out, permissionChanges(before.permissions, after.permissions));
    else out[field] = { from: (before as unknown as Record<string, unknown>)[field] ?? null, to };
  }
  return out;
}
