import { DmsError } from './dms-errors.js';
import type { Transport } from './http-transport.js';
import { checkedPage, MAX_LIST_PAGES, walkList } from './list-walk.js';
import type {
  DmsCustomField,
  DmsForbiddenKind,
  DmsNamedObject,
  DmsTag,
  DmsVocabulary,
  DmsVocabularyKind,
} from './types.js';

const PAGE_SIZE = 1000;

/** Each list and the Django model permission Paperless checks before listing it (`PaperlessObjectPermissions`). */
export const VOCABULARY_PERMISSIONS: Record<DmsVocabularyKind, string> = {
  tags: 'view_tag',
  correspondents: 'view_correspondent',
  document_types: 'view_documenttype',
  storage_paths: 'view_storagepath',
  custom_fields: 'view_customfield',
  users: 'view_user',
  groups: 'view_group',
};

const KINDS = Object.keys(VOCABULARY_PERMISSIONS) as DmsVocabularyKind[];
const PRINCIPALS: DmsVocabularyKind[] = ['users', 'groups'];
const OBJECT_KINDS = KINDS.filter((kind) => !PRINCIPALS.includes(kind));
const FORBIDDEN = Symbol('forbidden');

/** All pages of one list (bounded, `walkList`), or FORBIDDEN when the token's user may not view that kind (403). */
async function listAll<T>(transport: Transport, kind: DmsVocabularyKind): Promise<T[] | typeof FORBIDDEN> {
  const all: T[] = [];
  try {
    for await (const results of walkList<T>(transport, {
      base: transport.url,
      path: `/api/${kind}/`,
      pageSize: PAGE_SIZE,
      maxPages: MAX_LIST_PAGES,
    })) {
      all.push(...results);
    }
  } catch (err) {
    if (err instanceof DmsError && err.dmsStatus === 403) return FORBIDDEN;
    throw err;
  }
  return all;
}

/** Whether the token's user may not view `kind`, from its first one-item page. */
async function isForbidden(transport: Transport, kind: DmsVocabularyKind): Promise<boolean> {
  const path = `/api/${kind}/`;
  try {
    const res = await transport.send({
      method: 'GET',
      path,
      query: new URLSearchParams({ page: '1', page_size: '1' }),
      idempotent: true,
    });
    checkedPage(res.json, { base: transport.url, path, page: 1, pageSize: 1 });
    return false;
  } catch (err) {
    if (err instanceof DmsError && err.dmsStatus === 403) return true;
    throw err;
  }
}

// Keep only what the service uses, so the cache stays small and the engine sees one shape.
function named(o: DmsNamedObject): DmsNamedObject {
  return { id: o.id, name: o.name, owner: o.owner ?? null };
}

/**
 * Lists tags, correspondents, document types, storage paths and custom fields (all pages). A kind the token
 * may not view is left empty and named in `forbidden`, so one missing permission never fails every run.
 */
export async function fetchVocabulary(transport: Transport): Promise<DmsVocabulary> {
  const { list, forbidden } = await listKinds(transport, OBJECT_KINDS);
  return {
    tags: list<DmsTag>('tags').map((t) => ({
      ...named(t),
      is_inbox_tag: t.is_inbox_tag,
      parent: t.parent ?? null,
      color: t.color,
    })),
    correspondents: list<DmsNamedObject>('correspondents').map(named),
    document_types: list<DmsNamedObject>('document_types').map(named),
    storage_paths: list<DmsNamedObject>('storage_paths').map(named),
    custom_fields: list<DmsCustomField>('custom_fields').map((f) => ({
      id: f.id,
      name: f.name,
      data_type: f.data_type,
      extra_data: {
        select_options: f.extra_data?.select_options ?? [],
        default_currency: f.extra_data?.default_currency ?? null,
      },
    })),
    ...(forbidden.length > 0 ? { forbidden } : {}),
  };
}

/** Users (by username) and groups, for rules that name owners or permissions; neither has an owner. */
export async function fetchPrincipals(
  transport: Transport,
): Promise<Pick<DmsVocabulary, 'users' | 'groups'> & { forbidden: DmsForbiddenKind[] }> {
  const { list, forbidden } = await listKinds(transport, PRINCIPALS);
  return {
    users: list<{ id: number; username: string }>('users').map((u) => ({ id: u.id, name: u.username })),
    groups: list<DmsNamedObject>('groups').map((g) => ({ id: g.id, name: g.name })),
    forbidden,
  };
}

async function listKinds(transport: Transport, kinds: DmsVocabularyKind[]) {
  const lists = await Promise.all(kinds.map((kind) => listAll<unknown>(transport, kind)));
  const list = <T>(kind: DmsVocabularyKind): T[] => {
    const found = lists[kinds.indexOf(kind)];
    return found === FORBIDDEN ? [] : (found as T[]);
  };
  const forbidden = kinds
    .filter((_, i) => lists[i] === FORBIDDEN)
    .map((kind) => ({ kind, permission: VOCABULARY_PERMISSIONS[kind] }));
  return { list, forbidden };
}

/** Which kinds the token may not view, from one one-item page of each list (cheap enough for a health check). */
export async function probeForbidden(transport: Transport): Promise<DmsForbiddenKind[]> {
  const forbidden: DmsForbiddenKind[] = [];
  for (const kind of KINDS) {
    if (await isForbidden(transport, kind)) forbidden.push({ kind, permission: VOCABULARY_PERMISSIONS[kind] });
  }
  return forbidden;
}
