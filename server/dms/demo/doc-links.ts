import { snapshot } from './audit-log.js';
import { recordInstances } from './audit-record.js';
import type { SimStore } from './store.js';

// Paperless mirrors document links: writing A's link field to [B] puts A into B's value of the same field
// (`reflect_doclinks`), and dropping B from A's value takes A out of B's (`remove_doclink`), both in
// documents/bulk_edit.py. The targets' `modified` moves (a queryset `update`, so no webhook), and only a removal
// is in the target's audit log (`instance.save()`); additions are `bulk_create`/`bulk_update`, which log nothing.

/** `remove_doclink`: takes `documentId` out of the target's value of the field; the target's `modified` moves regardless. */
export function removeDoclink(
  store: SimStore,
  documentId: number,
  fieldId: number,
  targetId: number,
  actor: number | null,
): void {
  const target = store.getDocument(targetId);
  if (!target) return;
  const instance = target.custom_fields.find((cf) => cf.field === fieldId);
  if (instance && Array.isArray(instance.value) && instance.value.includes(documentId)) {
    const before = snapshot(target);
    instance.value = instance.value.filter((id) => id !== documentId);
    recordInstances(store, before, target, actor);
  }
  target.modified = store.now();
}

/**
 * `reflect_doclinks(document, field, targets)`: first drops the link from documents the document's *stored* value
 * names but `targets` does not (a PATCH calls it before storing the new value; a bulk edit after, so there this
 * step finds nothing), then adds the document to each target's value, then bumps every target's `modified`.
 */
export function reflectDoclinks(
  store: SimStore,
  documentId: number,
  fieldId: number,
  targets: number[] | null,
  actor: number | null,
): void {
  const wanted = targets ?? [];
  const current = store.getDocument(documentId)?.custom_fields.find((cf) => cf.field === fieldId);
  if (current && Array.isArray(current.value)) {
    for (const id of current.value as number[])
      if (!wanted.includes(id)) removeDoclink(store, documentId, fieldId, id, actor);
  }
  for (const id of wanted) {
    const target = store.getDocument(id);
    if (!target) continue;
    const instance = target.custom_fields.find((cf) => cf.field === fieldId);
    if (!instance) target.custom_fields.push({ value: [documentId], field: fieldId });
    else if (!Array.isArray(instance.value)) instance.value = [documentId];
    else if (!instance.value.includes(documentId)) instance.value = [...(instance.value as number[]), documentId];
  }
  for (const id of wanted) {
    const target = store.getDocument(id);
    if (target) target.modified = store.now();
  }
}
