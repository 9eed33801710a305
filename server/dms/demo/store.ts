import { createAuditLog, type SimAuditLog } from './audit-log.js';
import { createTagTree, type TagTree } from '../tag-hierarchy.js';
import type { DmsNote } from '../types.js';
import { account, seedAccounts, seedGroups, type SimAccountInput } from './seed-accounts.js';
import { SEED_HIDDEN_IDS, SEED_TRASHED_ASNS, seedDocuments, seedObjects } from './seed-data.js';
import {
  OBJECT_KINDS,
  SIM_USER,
  type ObjectGrants,
  type ObjectKind,
  type SimAccount,
  type SimDocument,
  type SimGroup,
  type SimObject,
} from './sim-types.js';

/** The simulator's data: documents in id order, vocabulary, and a clock that never runs backwards. */
export interface SimStore {
  readonly documents: Map<number, SimDocument>;
  readonly objects: Record<ObjectKind, SimObject[]>;
  /** ASNs held by trashed documents: refused on write, like Paperless. */
  readonly trashedAsns: Set<number>;
  /** Every Django user, the hidden "AnonymousUser" and "consumer" included, in id order. */
  readonly users: SimAccount[];
  readonly groups: SimGroup[];
  /** Object permissions per document id (absent = none); trashed documents keep theirs, as in Paperless. */
  readonly grants: Map<number, ObjectGrants>;
  /** Paperless's audit log (audit-log.ts): entries by document and custom-field instance. */
  readonly audit: SimAuditLog;
  account(id: number): SimAccount | undefined;
  group(id: number): SimGroup | undefined;
  /** Adds the account, or replaces the one with its id. */
  putAccount(account: SimAccount): void;
  getDocument(id: number): SimDocument | undefined;
  /** Adds a document with the next free id (or its own, when free) and returns it. */
  insertDocument(doc: Omit<SimDocument, 'id'> & { id?: number }): SimDocument;
  object(kind: ObjectKind, id: number): SimObject | undefined;
  insertObject(kind: ObjectKind, object: Omit<SimObject, 'id'>): SimObject;
  deleteObject(kind: ObjectKind, id: number): void;
  /** The tag hierarchy as it is now (Paperless adds ancestors and removes descendants on write). */
  tagTree(): TagTree;
  nextNoteId(): number;
  /** ISO datetime for `modified`/`added`; strictly increasing even within one millisecond. */
  now(): string;
  /** A note by the user with that id (default the superuser anna), as BasicUserSerializer names it. */
  newNote(text: string, userId?: number): DmsNote;
}

export interface StoreOptions {
  /** Load the fixture documents (default true). The fixture vocabulary is always loaded. */
  seedDocuments?: boolean;
  clock?: () => number;
  /** Users added to the seeded ones, or fields changed on the seeded one with the same id. */
  users?: SimAccountInput[];
  /** Groups added to the seeded ones, or replacing the seeded one with the same id. */
  groups?: SimGroup[];
}

function mergeById<T extends { id: number }, I extends { id: number }>(
  seeded: T[],
  extra: I[],
  merge: (input: I, base?: T) => T,
): T[] {
  const byId = new Map(seeded.map((item) => [item.id, item]));
  for (const item of extra) byId.set(item.id, merge(item, byId.get(item.id)));
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

export function createStore(options: StoreOptions = {}): SimStore {
  const clock = options.clock ?? Date.now;
  const documents = new Map<number, SimDocument>();
  const objects = seedObjects();
  const trashedAsns = new Set<number>(SEED_TRASHED_ASNS);
  const users = mergeById(seedAccounts(), options.users ?? [], account);
  const groups = mergeById(seedGroups(), options.groups ?? [], (group) => structuredClone(group));
  let lastId = Math.max(...SEED_HIDDEN_IDS);
  let lastTick = 0;
  let lastNote = 0;
  if (options.seedDocuments !== false) {
    for (const doc of seedDocuments()) {
      documents.set(doc.id, doc);
      lastId = Math.max(lastId, doc.id);
      for (const note of doc.notes) lastNote = Math.max(lastNote, note.id);
    }
  }

  const store: SimStore = {
    documents,
    objects,
    trashedAsns,
    users,
    groups,
    grants: new Map(),
    audit: createAuditLog(),
    account: (id) => users.find((u) => u.id === id),
    group: (id) => groups.find((g) => g.id === id),
    putAccount(account) {
      const at = users.findIndex((u) => u.id === account.id);
      if (at >= 0) users[at] = account;
      else {
        users.push(account);
        users.sort((a, b) => a.id - b.id);
      }
    },
    getDocument: (id) => documents.get(id),
    insertDocument(doc) {
      // Ids only grow, so the Map's insertion order stays id order (what `ordering=id` pages through).
      const id = doc.id !== undefined && doc.id > lastId ? doc.id : lastId + 1;
      lastId = id;
      const stored: SimDocument = { ...doc, id };
      documents.set(id, stored);
      return stored;
    },
    object: (kind, id) => objects[kind].find((o) => o.id === id),
    insertObject(kind, object) {
      const id = Math.max(0, ...objects[kind].map((o) => o.id)) + 1;
      const stored = { id, ...object } as SimObject;
      objects[kind].push(stored);
      return stored;
    },
    deleteObject(kind, id) {
      objects[kind] = objects[kind].filter((o) => o.id !== id);
      for (const doc of documents.values()) {
        if (kind === 'tags') doc.tags = doc.tags.filter((t) => t !== id);
        else if (kind === 'custom_fields') doc.custom_fields = doc.custom_fields.filter((cf) => cf.field !== id);
        else if (doc[singular(kind)] === id) doc[singular(kind)] = null;
      }
    },
    tagTree: () => createTagTree(objects.tags),
    nextNoteId: () => ++lastNote,
    now() {
      lastTick = Math.max(clock(), lastTick + 1);
      return new Date(lastTick).toISOString();
    },
    newNote(text, userId = SIM_USER.id) {
      const author = store.account(userId);
      const user = author
        ? { id: author.id, username: author.username, first_name: author.first_name, last_name: author.last_name }
        : { ...SIM_USER };
      return { id: store.nextNoteId(), note: text, created: store.now(), user };
    },
  };
  return store;
}

function singular(kind: ObjectKind): 'correspondent' | 'document_type' | 'storage_path' {
  if (kind === 'correspondents') return 'correspondent';
  if (kind === 'document_types') return 'document_type';
  return 'storage_path';
}

/** Tags (and the other kinds) sorted as Paperless lists them: by lower-case name; custom fields by name. */
export function sortedObjects(store: SimStore, kind: ObjectKind): SimObject[] {
  const key = (o: SimObject) => (kind === 'custom_fields' ? o.name : o.name.toLowerCase());
  return [...store.objects[kind]].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id));
}

export { OBJECT_KINDS };
