import { createTagTree } from '../dms/tag-hierarchy.js';
import { unknownName } from '../dms/vocabulary-index.js';
import type { TagHierarchy } from '../engine/model.js';

/** A tag as the evaluation needs it: enough to walk Paperless's tag tree by name. */
export interface NamedTagNode {
  id: number;
  name: string;
  parent?: number | null;
}

/** The dms's tag tree by name, for the engine (one tree module serves the simulator, the planner and this). */
export function tagHierarchyOfTags(tags: readonly NamedTagNode[]): TagHierarchy {
  const tree = createTagTree(tags);
  const nameById = new Map(tags.map((t) => [t.id, t.name]));
  const idByName = new Map(tags.map((t) => [t.name.trim().toLowerCase(), t.id]));
  const names = (ids: number[]) => ids.map((id) => nameById.get(id) ?? unknownName(id));
  const walk = (step: (id: number) => number[]) => (name: string) => {
    const id = idByName.get(name.trim().toLowerCase());
    return id === undefined ? [] : names(step(id));
  };
  return { ancestors: walk((id) => tree.ancestors(id)), descendants: walk((id) => tree.descendants(id)) };
}
