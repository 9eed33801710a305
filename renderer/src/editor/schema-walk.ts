// Finds the JSON-schema nodes that describe a YAML path, so completion offers what is valid there.
// Pure: no DOM, unit-tested with the real rule schema.
import { ITEM } from './yaml-context.js';

export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode | SchemaNode[];
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  definitions?: Record<string, SchemaNode>;
  $defs?: Record<string, SchemaNode>;
}

function deref(root: SchemaNode, node: SchemaNode, seen = 0): SchemaNode {
  if (!node.$ref || seen > 20) return node;
  const m = /^#\/(definitions|\$defs)\/(.+)$/.exec(node.$ref);
  const target = m ? (m[1] === 'definitions' ? root.definitions : root.$defs)?.[m[2]] : undefined;
  // Keep the referring node's description (it says what this place means).
  return target
    ? { ...deref(root, target, seen + 1), ...(node.description ? { description: node.description } : {}) }
    : node;
}

/** A node and its oneOf/anyOf/allOf branches, flattened and dereferenced. */
export function alternatives(root: SchemaNode, node: SchemaNode): SchemaNode[] {
  const n = deref(root, node);
  const branches = [...(n.oneOf ?? []), ...(n.anyOf ?? []), ...(n.allOf ?? [])];
  if (branches.length === 0) return [n];
  const own: SchemaNode = { ...n, oneOf: undefined, anyOf: undefined, allOf: undefined };
  const hasOwnShape = own.type !== undefined || own.properties !== undefined || own.enum !== undefined;
  return [...(hasOwnShape ? [own] : []), ...branches.flatMap((b) => alternatives(root, b))];
}

function child(root: SchemaNode, node: SchemaNode, segment: string): SchemaNode[] {
  if (segment === ITEM) {
    if (!node.items || Array.isArray(node.items)) return [];
    return alternatives(root, node.items);
  }
  const prop = node.properties?.[segment];
  if (prop) return alternatives(root, prop);
  for (const [pattern, schema] of Object.entries(node.patternProperties ?? {})) {
    if (new RegExp(pattern).test(segment)) return alternatives(root, schema);
  }
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    return alternatives(root, node.additionalProperties);
  return [];
}

/** Every schema node that may describe the value at `path` (empty when the path is not valid). */
export function schemaAt(root: SchemaNode, path: string[]): SchemaNode[] {
  let nodes = alternatives(root, root);
  for (const segment of path) {
    nodes = nodes.flatMap((n) => child(root, n, segment));
    if (nodes.length === 0) break;
  }
  return nodes;
}

export function typesOf(node: SchemaNode): string[] {
  if (Array.isArray(node.type)) return node.type;
  if (node.type) return [node.type];
  if (node.properties || node.patternProperties) return ['object'];
  if (node.items) return ['array'];
  return [];
}

export interface KeyOption {
  key: string;
  description?: string;
  /** The key's value is a mapping or a list (so the value goes on the next lines). */
  nested: boolean;
}

/** The keys a mapping described by `nodes` may hold. */
export function keysOf(root: SchemaNode, nodes: SchemaNode[]): KeyOption[] {
  const out = new Map<string, KeyOption>();
  for (const node of nodes) {
    for (const [key, prop] of Object.entries(node.properties ?? {})) {
      if (out.has(key)) continue;
      const alts = alternatives(root, prop);
      const kinds = alts.flatMap(typesOf);
      const nested = kinds.length > 0 && kinds.every((t) => t === 'object' || t === 'array');
      out.set(key, { key, description: alts[0]?.description ?? deref(root, prop).description, nested });
    }
  }
  return [...out.values()];
}

/** Enum values, booleans and null allowed for a scalar at this place. */
export function scalarsOf(nodes: SchemaNode[]): string[] {
  const out = new Set<string>();
  for (const node of nodes) {
    for (const v of node.enum ?? []) out.add(typeof v === 'string' ? v : JSON.stringify(v));
    const types = typesOf(node);
    if (types.includes('boolean')) {
      out.add('true');
      out.add('false');
    }
  }
  return [...out];
}

/** True when the place holds a mapping (keys are typed there). */
export function isMapping(nodes: SchemaNode[]): boolean {
  return nodes.some((n) => typesOf(n).includes('object'));
}
