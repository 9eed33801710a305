import { fail, type SimHooks } from './http-kit.js';
import type { SimStore } from './store.js';
import type { ObjectKind, SimDocument } from './sim-types.js';
import { checkCustomFieldValue } from './value-rules.js';

const METHODS = [
  'set_correspondent',
  'set_document_type',
  'set_storage_path',
  'add_tag',
  'remove_tag',
  'modify_tags',
  'modify_custom_fields',
  'delete',
] as const;

type Method = (typeof METHODS)[number];
const RELATION: Record<string, ['correspondent' | 'document_type' | 'storage_path', ObjectKind, string]> = {
  set_correspondent: ['correspondent', 'correspondents', 'Correspondent'],
  set_document_type: ['document_type', 'document_types', 'Document type'],
  set_storage_path: ['storage_path', 'storage_paths', 'Storage path'],
};

function idList(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((v) => Number.isInteger(v)) ? (value as number[]) : null;
}

/**
 * `POST /api/documents/bulk_edit/` (§4.8): queryset-style updates, so `modified` does not move;
 * "Document Updated" fires afterwards for each affected document.
 */
export function bulkEdit(store: SimStore, body: unknown, hooks: SimHooks): void {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const method = input.method as Method;
  if (!METHODS.includes(method)) fail(400, { method: [`"${String(input.method)}" is not a valid choice.`] });
  const ids = idList(input.documents);
  if (!ids) fail(400, { documents: ['This field is required.'] });
  const docs = (ids as number[]).map((id) => store.getDocument(id));
  if (docs.some((d) => !d) || new Set(ids).size !== ids!.length) {
    fail(400, { documents: ["Some documents in documents don't exist or were specified twice."] });
  }
  const params = (typeof input.parameters === 'object' && input.parameters !== null ? input.parameters : {}) as Record<string, unknown>;
  const targets = docs as SimDocument[];
  const touched: SimDocument[] = [];

  if (method in RELATION) {
    const [key, kind, label] = RELATION[method];
    const value = params[key];
    if (value !== null && (!Number.isInteger(value) || !store.object(kind, value as number))) {
      fail(400, { non_field_errors: [`${label} does not exist`] });
    }
    for (const doc of targets) {
      if (doc[key] !== value) {
        doc[key] = value as number | null;
        touched.push(doc);
      }
    }
  } else if (method === 'add_tag' || method === 'remove_tag') {
    const tag = params.tag;
    if (!Number.isInteger(tag) || !store.object('tags', tag as number)) fail(400, { non_field_errors: ['Tag does not exist'] });
    for (const doc of targets) {
      if (method === 'add_tag' && !doc.tags.includes(tag as number)) {
        doc.tags = [...new Set([...doc.tags, ...store.withAncestors([tag as number])])];
        touched.push(doc);
      } else if (method === 'remove_tag' && doc.tags.includes(tag as number)) {
        const drop = new Set(store.withDescendants([tag as number]));
        doc.tags = doc.tags.filter((t) => !drop.has(t));
        touched.push(doc);
      }
    }
  } else if (method === 'modify_tags') {
    if (!('add_tags' in params)) fail(400, { non_field_errors: ['add_tags not specified'] });
    if (!('remove_tags' in params)) fail(400, { non_field_errors: ['remove_tags not specified'] });
    const add = idList(params.add_tags);
    const remove = idList(params.remove_tags);
    if (!add || !remove || [...add, ...remove].some((id) => !store.object('tags', id))) fail(400, { non_field_errors: ['Some tags in add_tags or remove_tags don\'t exist'] });
    const drop = new Set(store.withDescendants(remove!));
    const gain = store.withAncestors(add!);
    for (const doc of targets) {
      doc.tags = [...new Set([...doc.tags.filter((t) => !drop.has(t)), ...gain])];
      touched.push(doc);
    }
  } else if (method === 'modify_custom_fields') {
    modifyCustomFields(store, targets, params);
    touched.push(...targets);
  } else if (method === 'delete') {
    for (const doc of targets) {
      if (doc.archive_serial_number !== null) store.trashedAsns.add(doc.archive_serial_number);
      store.documents.delete(doc.id);
    }
    return;
  }
  for (const doc of touched) hooks.documentUpdated(doc.id);
}

function modifyCustomFields(store: SimStore, targets: SimDocument[], params: Record<string, unknown>): void {
  if (!('add_custom_fields' in params)) fail(400, { non_field_errors: ['add_custom_fields not specified'] });
  if (!('remove_custom_fields' in params)) fail(400, { non_field_errors: ['remove_custom_fields not specified'] });
  const add = params.add_custom_fields;
  const remove = idList(params.remove_custom_fields);
  if (!remove) fail(400, { non_field_errors: ['remove_custom_fields must be a list'] });
  // A dict sets values; a bare list attaches the fields with null and keeps existing values.
  const entries: Array<[number, unknown, boolean]> = Array.isArray(add)
    ? add.map((id) => [Number(id), null, false])
    : Object.entries((add ?? {}) as Record<string, unknown>).map(([id, value]) => [Number(id), value, true]);
  for (const [id, value, setValue] of entries) {
    const field = store.object('custom_fields', id);
    if (!field) fail(400, { non_field_errors: ['Some custom fields in add_custom_fields don\'t exist'] });
    if (setValue) {
      const checked = checkCustomFieldValue(field!, value);
      if (checked.error) fail(400, { non_field_errors: [checked.error] });
    }
  }
  for (const doc of targets) {
    for (const [id, value, setValue] of entries) {
      const existing = doc.custom_fields.find((cf) => cf.field === id);
      const stored = setValue ? checkCustomFieldValue(store.object('custom_fields', id)!, value).stored : null;
      if (existing) {
        if (setValue) existing.value = stored;
      } else doc.custom_fields.push({ value: stored, field: id });
    }
    doc.custom_fields = doc.custom_fields.filter((cf) => !remove!.includes(cf.field));
  }
}
