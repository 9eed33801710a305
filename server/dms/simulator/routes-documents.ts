import { bulkEdit } from './bulk-edit.js';
import { applyDocumentWrite } from './document-write.js';
import { compileFilter } from './filters.js';
import { fail, json, notFound, type SimContext, type SimHandler, type SimResult } from './http-kit.js';
import { pageRequest, paginate } from './pagination.js';
import { documentToWire } from './serialize.js';
import { moveToTrash } from './trash.js';
import type { SimDocument } from './sim-types.js';
import { PERMISSION_DENIED, permissionFor } from './sim-users.js';

const ORDER_FIELDS = new Set(['id', 'title', 'created', 'modified', 'added', 'archive_serial_number', 'page_count', 'owner']);

function documentOrFail(ctx: SimContext): SimDocument {
  const raw = ctx.match[1];
  if (!/^\d+$/.test(raw)) return fail(404, { detail: 'Not found.' });
  const doc = ctx.store.getDocument(Number(raw));
  // A document the user may not see is missing from its queryset: 404, as for one that does not exist.
  return doc && ctx.user.sees('documents', doc) ? doc : notFound('Document');
}

function view(ctx: SimContext) {
  const fields = ctx.params.get('fields');
  return {
    // `get_boolean` (documents/utils.py).
    fullPerms: ['yes', 'y', '1', 't', 'true'].includes((ctx.params.get('full_perms') ?? '').toLowerCase()),
    truncateContent: ['true', '1'].includes((ctx.params.get('truncate_content') ?? '').toLowerCase()),
    fields: fields ? new Set(fields.split(',').map((f) => f.trim())) : null,
    user: ctx.user,
  };
}

function ordered(docs: SimDocument[], ordering: string | null): SimDocument[] {
  const keys = (ordering ?? '-created,-id')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => ORDER_FIELDS.has(k.replace(/^-/, '')));
  if (keys.length === 1 && keys[0] === 'id') return docs;
  return [...docs].sort((a, b) => {
    for (const key of keys) {
      const field = key.replace(/^-/, '') as keyof SimDocument;
      const sign = key.startsWith('-') ? -1 : 1;
      const x = a[field] as string | number | null;
      const y = b[field] as string | number | null;
      if (x === y) continue;
      if (x === null) return sign;
      if (y === null) return -sign;
      return (x < y ? -1 : 1) * sign;
    }
    return 0;
  });
}

const list: SimHandler = (ctx) => {
  const filter = compileFilter(ctx.store, ctx.params);
  if (Object.keys(filter.errors).length > 0) return json(400, filter.errors);
  const request = pageRequest(ctx.params);
  if (!request) return json(404, { detail: 'Invalid page.' });
  const all = ctx.user.superuser ? [...ctx.store.documents.values()] : [...ctx.store.documents.values()].filter((d) => ctx.user.sees('documents', d));
  const ordering = ctx.params.get('ordering');
  // Unfiltered id-ordered pages (the client's scan) are sliced directly: no full copy per page.
  const matching = filter.empty ? all : all.filter((d) => filter.test(d));
  const docs = ordering === 'id' ? matching : ordered(matching, ordering);
  const v = view(ctx);
  const page = paginate(docs.length, (s, e) => docs.slice(s, e).map((d) => documentToWire(ctx.store, d, v)), request, `${ctx.origin}/api/documents/`, ctx.params);
  if (!page) return json(404, { detail: 'Invalid page.' });
  const body: Record<string, unknown> = { count: page.count, next: page.next, previous: page.previous };
  if (ctx.apiVersion < 10) body.all = docs.map((d) => d.id);
  body.results = page.results;
  return json(200, body);
};

const detail: SimHandler = (ctx) => {
  const doc = documentOrFail(ctx);
  if (ctx.method === 'GET') return json(200, documentToWire(ctx.store, doc, { ...view(ctx), detail: true }));
  // PaperlessObjectPermissions: PUT/PATCH of a document owned by someone else needs a change grant, DELETE a delete
  // grant (the simulator keeps none); the user sees the document, so it has read permission: 403, not 404.
  const allowed = ctx.method === 'DELETE' ? ctx.user.superuser || doc.owner === null || doc.owner === ctx.user.id : ctx.user.mayChange('documents', doc);
  if (!allowed) return json(403, PERMISSION_DENIED);
  if (ctx.method === 'DELETE') {
    moveToTrash(ctx.store, doc);
    return { status: 204 };
  }
  return write(ctx, doc);
};

async function write(ctx: SimContext, doc: SimDocument): Promise<SimResult> {
  const body = await ctx.json();
  // `fields=` shapes the serializer that reads the body too: keys outside it are ignored, not written.
  const { fields } = view(ctx);
  const read =
    fields && typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.fromEntries(Object.entries(body).filter(([key]) => fields.has(key))) : body;
  applyDocumentWrite(ctx.store, doc, read, ctx.method === 'PUT', ctx.user);
  // The response is built before "Document Updated" runs, as in Paperless (workflow changes are not in it).
  const result = json(200, documentToWire(ctx.store, doc, { fullPerms: true, detail: true, user: ctx.user, fields }));
  ctx.hooks.documentUpdated(doc.id);
  return result;
}

const notes: SimHandler = async (ctx) => {
  const doc = documentOrFail(ctx);
  if (ctx.method === 'POST') {
    const body = (await ctx.json()) as Record<string, unknown>;
    if (typeof body?.note !== 'string') return json(200, { error: 'Error saving note, check logs for more detail.' });
    doc.notes.push(ctx.store.newNote(body.note, ctx.user.id));
    doc.modified = ctx.store.now();
  } else if (ctx.method === 'DELETE') {
    const id = ctx.params.get('id');
    if (!id) return json(400, { id: 'This field is required.' });
    doc.notes = doc.notes.filter((n) => n.id !== Number(id));
    doc.modified = ctx.store.now();
  }
  return json(200, structuredClone(doc.notes));
};

const bulk: SimHandler = async (ctx) => {
  bulkEdit(ctx.store, await ctx.json({ jsonOnly: true }), ctx.hooks, ctx.user);
  return json(200, { result: 'OK' });
};

const nextAsn: SimHandler = (ctx) => {
  let max = 0;
  for (const doc of ctx.store.documents.values()) max = Math.max(max, doc.archive_serial_number ?? 0);
  for (const asn of ctx.store.trashedAsns) max = Math.max(max, asn);
  return json(200, max + 1);
};

export interface SimRoute {
  /** Counter and fault key, e.g. `/api/documents/{id}/`. */
  pattern: string;
  regex: RegExp;
  methods: string[];
  handler: SimHandler;
  /** The Django model permission a method needs (403 without it); none = any authenticated user. */
  permission?: (method: string) => string;
}

const documentPermission = (method: string) => permissionFor(method, 'documents');
const NOTE_PERMISSIONS: Record<string, string> = { GET: 'view_note', POST: 'add_note', DELETE: 'delete_note' };

export const documentRoutes: SimRoute[] = [
  { pattern: '/api/documents/', regex: /^\/api\/documents\/$/, methods: ['GET'], handler: list, permission: documentPermission },
  // BulkEditView's only permission class is IsAuthenticated; bulkEdit checks the rest after validating.
  { pattern: '/api/documents/bulk_edit/', regex: /^\/api\/documents\/bulk_edit\/$/, methods: ['POST'], handler: bulk },
  { pattern: '/api/documents/next_asn/', regex: /^\/api\/documents\/next_asn\/$/, methods: ['GET'], handler: nextAsn },
  {
    pattern: '/api/documents/{id}/notes/',
    regex: /^\/api\/documents\/([^/]+)\/notes\/$/,
    methods: ['GET', 'POST', 'DELETE'],
    handler: notes,
    permission: (m) => NOTE_PERMISSIONS[m],
  },
  {
    pattern: '/api/documents/{id}/',
    regex: /^\/api\/documents\/([^/]+)\/$/,
    methods: ['GET', 'PUT', 'PATCH', 'DELETE'],
    handler: detail,
    permission: documentPermission,
  },
];
