import type { BulkEditMethod } from '../../dms/types.js';
import type { DocumentPlan } from '../pipeline/plan-changes.js';

/** A plan's writes: scalar fields (one PATCH), tags and custom fields as differences. */
export type DocumentWrite = Pick<DocumentPlan, 'patch' | 'tags' | 'customFields'>;

export interface BulkOp {
  method: BulkEditMethod;
  parameters: Record<string, unknown>;
}

export interface BulkGroup {
  ops: BulkOp[];
  documents: number[];
}

const RELATION_METHODS = {
  correspondent: 'set_correspondent',
  document_type: 'set_document_type',
  storage_path: 'set_storage_path',
} as const;

const byId = (a: number, b: number) => a - b;

/**
 * The bulk edits that make the same change as a document's write, or null when it holds anything a bulk
 * edit cannot express (title, dates, ASN). Tags and custom fields already are differences, so "add
 * processed" is one group whatever else each document carries.
 */
export function bulkOpsFor(write: DocumentWrite): BulkOp[] | null {
  const ops: BulkOp[] = [];
  for (const key of Object.keys(write.patch) as Array<keyof DocumentWrite['patch']>) {
    if (write.patch[key] === undefined) continue;
    if (!(key in RELATION_METHODS)) return null;
    const relation = key as keyof typeof RELATION_METHODS;
    ops.push({ method: RELATION_METHODS[relation], parameters: { [relation]: write.patch[relation] ?? null } });
  }
  if (write.tags) {
    ops.push({
      method: 'modify_tags',
      parameters: { add_tags: [...write.tags.add].sort(byId), remove_tags: [...write.tags.remove].sort(byId) },
    });
  }
  if (write.customFields) {
    const set = [...write.customFields.set].sort((a, b) => a.field - b.field);
    ops.push({
      method: 'modify_custom_fields',
      parameters: {
        add_custom_fields: Object.fromEntries(set.map((cf) => [cf.field, cf.value])),
        remove_custom_fields: [...write.customFields.remove].sort(byId),
      },
    });
  }
  return ops.length ? ops : null;
}

/**
 * Splits a page of planned writes into bulk groups (two or more documents with the very same edits)
 * and the rest, which are written one by one. A group of one gains nothing from a bulk edit.
 */
export function groupWrites(items: Array<{ document: number; write: DocumentWrite }>): {
  groups: BulkGroup[];
  singles: number[];
} {
  const byKey = new Map<string, BulkGroup>();
  const singles: number[] = [];
  for (const { document, write } of items) {
    const ops = bulkOpsFor(write);
    if (!ops) {
      singles.push(document);
      continue;
    }
    const key = JSON.stringify(ops);
    const group = byKey.get(key);
    if (group) group.documents.push(document);
    else byKey.set(key, { ops, documents: [document] });
  }
  const groups: BulkGroup[] = [];
  for (const group of byKey.values()) {
    if (group.documents.length > 1) groups.push(group);
    else singles.push(...group.documents);
  }
  return { groups, singles };
}
