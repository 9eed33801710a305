import type { BulkEditMethod, DmsDocument, DocumentPatch } from '../../dms/types.js';

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

/**
 * The bulk edits that make the same change as a PATCH, or null when the patch holds anything a bulk
 * edit cannot express exactly (title, dates, custom fields…). Tags become a difference against the
 * document's current set, so "add processed" is one group whatever else each document carries.
 */
export function bulkOpsFor(document: DmsDocument, patch: DocumentPatch): BulkOp[] | null {
  const ops: BulkOp[] = [];
  for (const key of Object.keys(patch) as Array<keyof DocumentPatch>) {
    if (patch[key] === undefined) continue;
    if (key === 'tags') {
      const next = new Set(patch.tags);
      const current = new Set(document.tags);
      const add = [...next].filter((t) => !current.has(t)).sort((a, b) => a - b);
      const remove = [...current].filter((t) => !next.has(t)).sort((a, b) => a - b);
      if (add.length || remove.length) ops.push({ method: 'modify_tags', parameters: { add_tags: add, remove_tags: remove } });
    } else if (key in RELATION_METHODS) {
      const relation = key as keyof typeof RELATION_METHODS;
      ops.push({ method: RELATION_METHODS[relation], parameters: { [relation]: patch[relation] ?? null } });
    } else {
      return null;
    }
  }
  return ops.length ? ops : null;
}

/**
 * Splits a page of planned writes into bulk groups (two or more documents with the very same edits)
 * and the rest, which are written one PATCH each. A group of one gains nothing from a bulk edit.
 */
export function groupWrites(items: Array<{ document: DmsDocument; patch: DocumentPatch }>): { groups: BulkGroup[]; singles: number[] } {
  const byKey = new Map<string, BulkGroup>();
  const singles: number[] = [];
  for (const { document, patch } of items) {
    const ops = bulkOpsFor(document, patch);
    if (!ops) {
      singles.push(document.id);
      continue;
    }
    const key = JSON.stringify(ops);
    const group = byKey.get(key);
    if (group) group.documents.push(document.id);
    else byKey.set(key, { ops, documents: [document.id] });
  }
  const groups: BulkGroup[] = [];
  for (const group of byKey.values()) {
    if (group.documents.length > 1) groups.push(group);
    else singles.push(...group.documents);
  }
  return { groups, singles };
}
