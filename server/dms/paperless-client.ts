import type { Logger } from '../log.js';
import { MAX_ID_CHUNK, streamDocuments } from './document-stream.js';
import { documentListParams } from './document-query.js';
import { DmsError } from './dms-errors.js';
import { toDmsFile } from './file-download.js';
import { createTransport, type Transport } from './http-transport.js';
import { DEFAULT_READ_PLAN, type ReadPlan } from './read-plan.js';
import type {
  FindDocumentsQuery,
  BulkEditMethod,
  CreatableKind,
  DmsClient,
  DmsDocument,
  DmsNamedObject,
  DmsNote,
  DmsVocabulary,
  DocumentPage,
  DocumentPatch,
  DocumentQuery,
  DocumentWriteState,
} from './types.js';
import { SUPPORTED_PAPERLESS } from './api-version.js';
import { readDocumentHistory, readServiceUser } from './document-history.js';
import { releaseQuirks } from './release.js';
import { modifyCustomFields, patchDocument, type ReleaseWriteDeps } from './release-writes.js';
import { WRITE_STATE_FIELDS } from './types.js';
import { checkedArray, checkedPage, MAX_NOTES } from './list-walk.js';
import { fetchPrincipals, fetchVocabulary, probeForbidden } from './vocabulary-fetch.js';
import { errorMessage } from '../error-message.js';
import type { Secrets } from '../redaction.js';

export interface PaperlessClientOptions {
  /** Paperless base URL, e.g. http://paperless.lan:8000 (a path prefix is kept). */
  url: string;
  token: string | null;
  /** Per attempt, from sending to the last byte. Default 15 s. */
  timeoutMs?: number;
  /** Requests in flight at once (and keep-alive connections). Default 6. */
  maxInFlight?: number;
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** First backoff step; doubles per retry, with jitter. Default 250 ms. */
  retryBaseMs?: number;
  /** Longest Retry-After honoured. Default 60 s. */
  maxRetryAfterMs?: number;
  /** The vocabulary cache is refetched when older than this, so objects made in Paperless show up. Default 60 s. */
  vocabularyTtlMs?: number;
  /** The clock the vocabulary's age is read from (`fetchedSince` is on it too). Default `Date.now`. */
  now?: () => number;
  logger?: Logger;
  /** Page size and dms workers of document reads (default `DEFAULT_READ_PLAN`). */
  readPlan?: ReadPlan;
  /** An attempt found no dms to talk to (health marks it unreachable at once, not at the next ping). */
  onNoDms?: (message: string) => void;
  /** The largest answer read (SVC_DMS_MAX_ANSWER_MB). Default 64 MB. */
  maxAnswerBytes?: number;
  /** The service's other secrets, redacted (with the token) from the dms's error messages. */
  secrets?: Secrets;
}

/** The dms's answer for document `id`, which must be that document: another id (a cache, a proxy) is an error. */
function checkAnswerFor(json: unknown, id: number, request: string): void {
  const got = typeof json === 'object' && json !== null ? (json as { id?: unknown }).id : undefined;
  if (got !== id) {
    const named = typeof got === 'number' ? `document ${got}` : 'no document id';
    throw new DmsError(
      `dms answered ${request} with ${named}, not document ${id}: a cache or proxy in front of Paperless may mix up answers`,
      request,
      200,
    );
  }
}

const PATHS: Record<CreatableKind, string> = {
  tags: '/api/tags/',
  correspondents: '/api/correspondents/',
  document_types: '/api/document_types/',
  storage_paths: '/api/storage_paths/',
};

/** The Paperless-ngx REST client: the one implementation of `DmsClient`. */
export function createPaperlessClient(options: PaperlessClientOptions): DmsClient {
  const url = options.url.replace(/\/+$/, '');
  const transport: Transport = createTransport({
    url,
    token: options.token,
    timeoutMs: options.timeoutMs ?? 15_000,
    maxInFlight: options.maxInFlight ?? 6,
    retries: options.retries ?? 3,
    retryBaseMs: options.retryBaseMs ?? 250,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    logger: options.logger,
    onNoDms: options.onNoDms,
    maxAnswerBytes: options.maxAnswerBytes,
    secrets: options.secrets,
  });
  const readPlan = options.readPlan ?? DEFAULT_READ_PLAN;
  let cached: DmsVocabulary | null = null;
  let cachedAt = 0;
  const ttl = options.vocabularyTtlMs ?? 60_000;
  const now = options.now ?? Date.now;
  let loading: Promise<DmsVocabulary> | null = null;
  let loadingAskedAt = 0;

  const notFound = (id: number) => `Document ${id} does not exist in the dms (or the dms token may not see it).`;

  let principalsLoading: Promise<DmsVocabulary> | null = null;

  async function vocabulary(
    opts: { refresh?: boolean; principals?: boolean; fetchedSince?: number } = {},
  ): Promise<DmsVocabulary> {
    const since = opts.fetchedSince ?? 0;
    // A fetch asked for before `since` is not recent enough: wait it out, then ask again.
    if (loading && loadingAskedAt < since) await loading.catch(() => undefined);
    // While a fetch is under way every caller waits for it: a refresh means the cached copy may be out of date,
    // and a document evaluated meanwhile must not be read with it (a job refreshes beside its first pages).
    const usable = cached && !loading && !opts.refresh && now() - cachedAt <= ttl && cachedAt >= since;
    let current = usable ? cached : null;
    if (!current) {
      // Concurrent callers share one fetch instead of each listing five endpoints. Its age counts from when it
      // was asked for: an object created while the lists were read may be missing from it.
      if (!loading) {
        const askedAt = (loadingAskedAt = now());
        loading = fetchVocabulary(transport)
          .then((v) => {
            cachedAt = askedAt;
            return (cached = v);
          })
          .finally(() => (loading = null));
      }
      current = await loading;
    }
    if (!opts.principals || current.users !== undefined) return current;
    // Users and groups join the cached lists the first time a rule needs them, until the next refresh.
    principalsLoading ??= fetchPrincipals(transport)
      .then(({ users, groups, forbidden }) => {
        const base = cached ?? current;
        const all = [...(base.forbidden ?? []), ...forbidden];
        return (cached = { ...base, users, groups, ...(all.length > 0 ? { forbidden: all } : {}) });
      })
      .finally(() => (principalsLoading = null));
    return principalsLoading;
  }

  const creating = new Map<string, Promise<DmsNamedObject>>();

  async function createOnce(kind: CreatableKind, name: string, path: string | undefined): Promise<DmsNamedObject> {
    const known = cached?.[kind].find((o) => o.name.toLowerCase() === name.toLowerCase());
    if (known) return known;
    const body: Record<string, unknown> = { name, owner: null, matching_algorithm: 0 };
    if (kind === 'storage_paths') body.path = path ?? `${name}/{{ title }}`;
    let created: DmsNamedObject;
    try {
      const res = await transport.send({ method: 'POST', path: PATHS[kind], body, idempotent: false });
      created = res.json as DmsNamedObject;
    } catch (err) {
      // Someone (or our own earlier, timed-out attempt) created it meanwhile: use that one.
      if (!(err instanceof DmsError) || err.dmsStatus !== 400) throw err;
      const existing = await findByName(kind, name);
      if (!existing) throw err;
      created = existing;
    }
    if (cached && !cached[kind].some((o) => o.id === created.id)) {
      cached = { ...cached, [kind]: [...cached[kind], created] };
    }
    return created;
  }

  async function findByName(kind: CreatableKind, name: string): Promise<DmsNamedObject | undefined> {
    const query = new URLSearchParams({ name__iexact: name, page_size: '100' });
    const res = await transport.send({ method: 'GET', path: PATHS[kind], query, idempotent: true });
    const { results } = checkedPage<DmsNamedObject>(res.json, { base: url, path: PATHS[kind], page: 1, pageSize: 100 });
    return results.find((o) => o.owner == null) ?? results[0];
  }

  /** Documents by id, one request per `id__in` chunk (no count probe or id snapshot: the ids are known). */
  // With permissions, as single reads have them: the echo guard compares states read either way.
  async function byIds<T>(ids: number[], fields?: string[]): Promise<T[]> {
    const found: T[] = [];
    for (let i = 0; i < ids.length; i += MAX_ID_CHUNK) {
      const chunk = ids.slice(i, i + MAX_ID_CHUNK);
      const query = documentListParams(
        { fields, fullPerms: true, pageSize: chunk.length, filters: { id__in: chunk.join(',') } },
        1,
      );
      const res = await transport.send({ method: 'GET', path: '/api/documents/', query, idempotent: true });
      found.push(
        ...checkedPage<T>(res.json, { base: url, path: '/api/documents/', page: 1, pageSize: chunk.length }).results,
      );
    }
    return found;
  }

  const quirks = () => releaseQuirks(transport.versions().version);
  const releaseDeps: ReleaseWriteDeps = {
    transport,
    quirks,
    version: () => transport.versions().version,
    vocabulary: () => vocabulary(),
    getWriteStates: (ids) => byIds<DocumentWriteState>(ids, ['id', 'custom_fields']),
  };

  return {
    url,

    async ping() {
      const facts = () => {
        const { apiVersion, version, maxApiVersion } = transport.versions();
        // Until Paperless answered (authenticated) the version in use is only a guess: leave it out.
        const answered = version !== undefined || maxApiVersion !== undefined;
        if (!answered) return { supportedVersions: SUPPORTED_PAPERLESS };
        const release = releaseQuirks(version);
        return {
          supportedVersions: SUPPORTED_PAPERLESS,
          version,
          apiVersion,
          serverApiVersion: maxApiVersion,
          releaseGroup: release.group,
          releaseDifferences: release.differences,
        };
      };
      try {
        // No document matches id 0: on 2.x a list page carries the ids of every matching document (`all`).
        const query = new URLSearchParams({ page_size: '1', fields: 'id', id__in: '0' });
        await transport.send({ method: 'GET', path: '/api/documents/', query, idempotent: true });
        return { ok: true, ...facts(), forbidden: await probeForbidden(transport) };
      } catch (err) {
        return { ok: false, error: errorMessage(err), ...facts() };
      }
    },

    async getDocument(id) {
      // One document's permissions cost the dms little, and a permission action needs them.
      const query = new URLSearchParams({ full_perms: 'true' });
      const res = await transport.send({
        method: 'GET',
        path: `/api/documents/${id}/`,
        query,
        idempotent: true,
        notFound: notFound(id),
      });
      checkAnswerFor(res.json, id, `GET /api/documents/${id}/`);
      return res.json as DmsDocument;
    },

    pages(query: DocumentQuery = {}): AsyncGenerator<DocumentPage> {
      return streamDocuments(transport, query, readPlan);
    },

    async findDocuments(query: FindDocumentsQuery): Promise<DocumentPage> {
      const params = documentListParams(
        { filters: query.filters, fields: query.fields, pageSize: query.pageSize },
        1,
        query.ordering,
      );
      const res = await transport.send({ method: 'GET', path: '/api/documents/', query: params, idempotent: true });
      const page = checkedPage<DmsDocument>(res.json, {
        base: url,
        path: '/api/documents/',
        page: 1,
        pageSize: query.pageSize,
      });
      return { count: page.count, documents: page.results };
    },

    async getWriteState(id) {
      const query = new URLSearchParams({ fields: WRITE_STATE_FIELDS.join(','), full_perms: 'true' });
      const res = await transport.send({
        method: 'GET',
        path: `/api/documents/${id}/`,
        query,
        idempotent: true,
        notFound: notFound(id),
      });
      checkAnswerFor(res.json, id, `GET /api/documents/${id}/`);
      return res.json as DocumentWriteState;
    },

    getDocuments(ids) {
      return byIds<DmsDocument>(ids);
    },

    getWriteStates(ids) {
      return byIds<DocumentWriteState>(ids, [...WRITE_STATE_FIELDS]);
    },

    updateDocument(id, patch: DocumentPatch) {
      return patchDocument(releaseDeps, id, patch, notFound(id));
    },

    async bulkEdit(documents: number[], method: BulkEditMethod, parameters: Record<string, unknown>) {
      if (documents.length === 0) return;
      if (method === 'modify_custom_fields') return modifyCustomFields(releaseDeps, documents, parameters);
      // Every bulk method sets a target state, so sending it twice is harmless.
      await transport.send({
        method: 'POST',
        path: '/api/documents/bulk_edit/',
        body: { documents, method, parameters },
        idempotent: true,
      });
    },

    async trashDocument(id) {
      // Not resent blindly: a second DELETE after a lost answer would find the document gone (404).
      await transport.send({
        method: 'DELETE',
        path: `/api/documents/${id}/`,
        idempotent: false,
        notFound: notFound(id),
      });
    },

    async restoreFromTrash(ids) {
      if (ids.length === 0) return;
      await transport.send({
        method: 'POST',
        path: '/api/trash/',
        body: { documents: ids, action: 'restore' },
        idempotent: true,
      });
    },

    async addNote(id, note) {
      const res = await transport.send({
        method: 'POST',
        path: `/api/documents/${id}/notes/`,
        body: { note },
        idempotent: false,
        notFound: notFound(id),
      });
      const json = res.json as DmsNote[] | { error?: string } | null;
      // Paperless reports a failed note as 200 {"error": …}.
      if (json && !Array.isArray(json) && typeof json === 'object') {
        throw new DmsError(
          `dms refused the note on document ${id}: ${json.error ?? 'unknown error'}`,
          `POST /api/documents/${id}/notes/`,
          200,
        );
      }
      return checkedArray<DmsNote>(json, `POST /api/documents/${id}/notes/`, MAX_NOTES);
    },

    async downloadDocument(id, { original, maxBytes }) {
      const res = await transport.send({
        method: 'GET',
        path: `/api/documents/${id}/download/`,
        query: original ? new URLSearchParams({ original: 'true' }) : undefined,
        idempotent: true,
        notFound: notFound(id),
        maxBytes,
      });
      return toDmsFile(id, res.headers, res.bytes ?? Buffer.alloc(0));
    },

    documentHistory: (id) => readDocumentHistory(transport, id, notFound(id)),

    serviceUser: () => readServiceUser(transport),

    vocabulary,

    createObject(kind, name, path) {
      // Many documents of one job may need the same missing tag at once: create it once, share the answer.
      const key = `${kind}\u0000${name.toLowerCase()}`;
      let creation = creating.get(key);
      if (!creation) {
        creation = createOnce(kind, name, path).finally(() => creating.delete(key));
        creating.set(key, creation);
      }
      return creation;
    },

    async close() {
      await transport.close();
    },
  };
}
