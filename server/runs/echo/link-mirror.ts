import type { DmsDocument } from '../../dms/types.js';

/**
 * Paperless mirrors document links (`reflect_doclinks` / `remove_doclink` in `documents/bulk_edit.py`):
 * writing document A's link field to [B] puts A into B's value of the same field, and a link field removed
 * from A takes A out of its targets' values. The target's `modified` moves and no webhook fires, so catch-up
 * finds the target changed. That change is the service's own when the service wrote A; this module tells
 * which documents a write may have mirrored onto, and what such a target looked like before the mirror.
 */

/** Values of document-link fields are lists of document ids; no other custom-field type stores a list of numbers. */
const linkValue = (value: unknown): number[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === 'number') ? value : null;

export interface MirroredLink {
  /** The document the mirror changed. */
  target: number;
  field: number;
  /** The written document's id, added to (or taken from) the target's value. */
  source: number;
  added: boolean;
}

/**
 * The links a write of `after` may have mirrored: every target its link fields name now (an addition; Paperless
 * appends the source where it is missing) and, where the document before the write is known, every target of a
 * link field the write removed (Paperless's bulk edit unmirrors only removed fields, a PATCH also dropped targets).
 */
export function mirroredLinks(after: DmsDocument, before?: DmsDocument): MirroredLink[] {
  const links: MirroredLink[] = [];
  const now = new Map((after.custom_fields ?? []).map((cf) => [cf.field, linkValue(cf.value)]));
  for (const [field, targets] of now)
    for (const target of targets ?? []) links.push({ target, field, source: after.id, added: true });
  for (const cf of before?.custom_fields ?? []) {
    const kept = now.get(cf.field) ?? [];
    for (const target of linkValue(cf.value) ?? [])
      if (!kept.includes(target)) links.push({ target, field: cf.field, source: after.id, added: false });
  }
  return links.filter((link) => link.target !== after.id);
}

/**
 * The forms the target may have had before the mirror: the mirror added the source to an absent field, a
 * null or a list; or it took the source out of a list. Comparing each with the state the service last knew
 * tells whether the mirror is the target's only change.
 */
export function beforeMirror(target: DmsDocument, link: MirroredLink): DmsDocument[] {
  const fields = target.custom_fields ?? [];
  const index = fields.findIndex((cf) => cf.field === link.field);
  const value = index >= 0 ? linkValue(fields[index].value) : null;
  const withValue = (v: number[] | null | undefined): DmsDocument => ({
    ...target,
    custom_fields:
      v === undefined
        ? fields.filter((_, i) => i !== index)
        : fields.map((cf, i) => (i === index ? { ...cf, value: v } : cf)),
  });
  if (link.added) {
    if (!value?.includes(link.source)) return [];
    const rest = value.filter((id) => id !== link.source);
    return rest.length > 0 ? [withValue(rest)] : [withValue(undefined), withValue(null), withValue([])];
  }
  if (index < 0 || value?.includes(link.source)) return [];
  // Paperless took the source out wherever it stood in the list.
  const list = value ?? [];
  return list
    .map((_, at) => withValue([...list.slice(0, at), link.source, ...list.slice(at)]))
    .concat(withValue([...list, link.source]));
}
