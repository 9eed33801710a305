/**
 * Paperless-ngx's tag hierarchy (2.19.0+ and 3.x), as pure functions over tag ids. The simulator stores
 * tags with them and the planner predicts with them, so both agree with the real server by construction:
 * - PATCH `tags` (`DocumentSerializer.update` in `documents/serialisers.py`): the requested tags plus all
 *   their ancestors, minus every tag removed by this write and all its descendants (even one a requested tag
 *   would bring);
 * - bulk `add_tag`/`remove_tag`/`modify_tags` (`documents/bulk_edit.py`): removed tags go with all their
 *   descendants, added tags come with all their ancestors; nothing else changes.
 */

export interface TagNode {
  id: number;
  parent?: number | null;
}

export interface TagTree {
  /** Parent, grandparent, … of a tag (nearest first); empty for a root or an unknown tag. */
  ancestors(id: number): number[];
  /** Every tag below a tag, at any depth. */
  descendants(id: number): number[];
}

export function createTagTree(tags: readonly TagNode[]): TagTree {
  const parentOf = new Map<number, number>();
  const childrenOf = new Map<number, number[]>();
  for (const tag of tags) {
    if (tag.parent == null) continue;
    parentOf.set(tag.id, tag.parent);
    childrenOf.set(tag.parent, [...(childrenOf.get(tag.parent) ?? []), tag.id]);
  }
  return {
    ancestors(id) {
      const out: number[] = [];
      // The seen-set guards against a parent cycle in bad data; Paperless itself refuses cycles.
      for (let p = parentOf.get(id); p !== undefined && p !== id && !out.includes(p); p = parentOf.get(p)) out.push(p);
      return out;
    },
    descendants(id) {
      const out: number[] = [];
      const queue = [...(childrenOf.get(id) ?? [])];
      while (queue.length > 0) {
        const next = queue.shift() as number;
        if (next === id || out.includes(next)) continue;
        out.push(next);
        queue.push(...(childrenOf.get(next) ?? []));
      }
      return out;
    },
  };
}

/** The tags plus every ancestor of each, without duplicates, in first-seen order. */
export function withAncestors(tree: TagTree, ids: Iterable<number>): number[] {
  const out = new Set<number>();
  for (const id of ids) for (const t of [id, ...tree.ancestors(id)]) out.add(t);
  return [...out];
}

/** The tags plus every descendant of each. */
export function withDescendants(tree: TagTree, ids: Iterable<number>): number[] {
  const out = new Set<number>();
  for (const id of ids) for (const t of [id, ...tree.descendants(id)]) out.add(t);
  return [...out];
}

/**
 * What Paperless stores after `PATCH {tags: requested}` on a document holding `previous`: the requested tags and their
 * ancestors, minus every tag the write removes and its descendants, even an ancestor the requested tags would bring
 * (so `[child]` on a document holding only the parent stores nothing; `DocumentSerializer.update`, serialisers.py:1106
 * at v2.19.0, unchanged to v3.0.5).
 */
export function tagsAfterPatch(tree: TagTree, previous: readonly number[], requested: readonly number[]): number[] {
  const wanted = new Set(requested);
  const blocked = new Set(
    withDescendants(
      tree,
      previous.filter((t) => !wanted.has(t)),
    ),
  );
  return withAncestors(tree, wanted).filter((t) => !blocked.has(t));
}

/** What Paperless stores after bulk `modify_tags` (also `add_tag`: one add, `remove_tag`: one removal). */
export function tagsAfterModify(
  tree: TagTree,
  previous: readonly number[],
  add: readonly number[],
  remove: readonly number[],
): number[] {
  const drop = new Set(withDescendants(tree, remove));
  return [...new Set([...previous.filter((t) => !drop.has(t)), ...withAncestors(tree, add)])];
}
