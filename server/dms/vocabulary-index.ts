import type { DmsCustomField, DmsNamedObject, DmsVocabulary } from './types.js';

export { decodeCustomFieldValue, encodeCustomFieldValue } from './custom-field-codec.js';
export { DmsError, DmsNotFoundError, DmsValueError } from './dms-errors.js';

export type VocabularyKind =
  'tags' | 'correspondents' | 'document_types' | 'storage_paths' | 'custom_fields' | 'users' | 'groups';

/** Name ↔ id lookups over one snapshot of the dms vocabulary. Missing names and ids give `undefined`. */
export interface VocabularyIndex {
  readonly vocabulary: DmsVocabulary;
  /** Case-insensitive; when several objects share a name (different owners) the unowned one wins. */
  idOf(kind: VocabularyKind, name: string): number | undefined;
  nameOf(kind: VocabularyKind, id: number): string | undefined;
  field(name: string): DmsCustomField | undefined;
  fieldById(id: number): DmsCustomField | undefined;
  /** Every name of a kind, in the dms's order (for autocomplete and "did you mean"). */
  names(kind: VocabularyKind): string[];
}

/**
 * How an id the vocabulary does not know is named (it changed since the last refresh, or the token may not see
 * it): `#12`, visible in traces and plans, never silently dropped. The one spelling every module uses.
 */
export function unknownName(id: number): string {
  return `#${id}`;
}

const KINDS: VocabularyKind[] = [
  'tags',
  'correspondents',
  'document_types',
  'storage_paths',
  'custom_fields',
  'users',
  'groups',
];

// Lower rank wins: unowned beats owned, then the exact spelling, then the older (lower) id.
function better(candidate: DmsNamedObject, current: DmsNamedObject, name: string): boolean {
  const rank = (o: DmsNamedObject) => (o.owner == null ? 0 : 2) + (o.name === name ? 0 : 1);
  const a = rank(candidate);
  const b = rank(current);
  return a !== b ? a < b : candidate.id < current.id;
}

export function createVocabularyIndex(vocab: DmsVocabulary): VocabularyIndex {
  const byName = new Map<VocabularyKind, Map<string, DmsNamedObject[]>>();
  const byId = new Map<VocabularyKind, Map<number, DmsNamedObject>>();
  for (const kind of KINDS) {
    const names = new Map<string, DmsNamedObject[]>();
    const ids = new Map<number, DmsNamedObject>();
    for (const object of (vocab[kind] ?? []) as DmsNamedObject[]) {
      ids.set(object.id, object);
      const key = object.name.toLowerCase();
      names.set(key, [...(names.get(key) ?? []), object]);
    }
    byName.set(kind, names);
    byId.set(kind, ids);
  }

  const lookup = (kind: VocabularyKind, name: string): DmsNamedObject | undefined => {
    const candidates = byName.get(kind)?.get(name.trim().toLowerCase());
    if (!candidates) return undefined;
    return candidates.reduce((best, c) => (better(c, best, name.trim()) ? c : best));
  };

  return {
    vocabulary: vocab,
    idOf: (kind, name) => lookup(kind, name)?.id,
    nameOf: (kind, id) => byId.get(kind)?.get(id)?.name,
    field: (name) => lookup('custom_fields', name) as DmsCustomField | undefined,
    fieldById: (id) => byId.get('custom_fields')?.get(id) as DmsCustomField | undefined,
    names: (kind) => ((vocab[kind] ?? []) as DmsNamedObject[]).map((o) => o.name),
  };
}
