import { historyOf, recordNote } from './audit-record.js';
import { bulkEdit } from './bulk-edit.js';
import { behaviourOf } from './profiles.js';
import { applyDocumentWrite } from './document-write.js';
import { compileFilter, customFieldOrdering } from './filters.js';
import { fail, json, notFound, type SimContext, type SimHandler, type SimResult } from './http-kit.js';
import { pageRequest, paginate } from './pagination.js';
import { documentToWire } from './serialize.js';
import { moveToTrash } from './trash.js';
import type { SimDocument } from './sim-types.js';
import { PERMISSION_DENIED, permissionFor } from './sim-users.js';

const ORDER_FIELDS = new Set([
  'id',
  'title',
  'created',
  'modified',
  'added',
  'archive_serial_number',
  'page_count',
  'owner',
]);

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
    v3Fields: behaviourOf(ctx.profile).v3Fields,
  };
}

const pick = (wire: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => k in wire).map((k) => [k, wire[k]]));

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
  const all = ctx.user.superuser
    ? [...ctx.store.documents.values()]
    : [...ctx.store.documents.values()].filter((d) => ctx.user.sees('documents', d));
  const ordering = ctx.params.get('ordering');
  // Unfiltered id-ordered pages (the client's scan) are sliced directly: no full copy per page.
  const matching = filter.empty ? all : all.filter((d) => filter.test(d));
  const byCustomField = customFieldOrdering(ctx.store, ordering);
  if (byCustomField && 'status' in byCustomField) return json(byCustomField.status, byCustomField.body);
  const docs = byCustomField
    ? [...matching].sort(byCustomField.compare)
    : ordering === 'id'
      ? matching
      : ordered(matching, ordering);
  const v = view(ctx);
  const page = paginate(
    docs.length,
    (s, e) => docs.slice(s, e).map((d) => documentToWire(ctx.store, d, v)),
    request,
    `${ctx.origin}/api/documents/`,
    ctx.params,
  );
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
  const allowed =
    ctx.method === 'DELETE'
      ? ctx.user.superuser || doc.owner === null || doc.owner === ctx.user.id
      : ctx.user.mayChange('documents', doc);
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
    fields && typeof body === 'object' && body !== null && !Array.isArray(body)
      ? Object.fromEntries(Object.entries(body).filter(([key]) => fields.has(key)))
      : body;
  const behaviour = behaviourOf(ctx.profile);
  const inMemoryModified = applyDocumentWrite(ctx.store, doc, read, ctx.method === 'PUT', ctx.user, { behaviour });
  const answer = () =>
    documentToWire(ctx.store, doc, {
      fullPerms: true,
      detail: true,
      user: ctx.user,
      fields,
      v3Fields: behaviour.v3Fields,
    });
  // 2.x answers with the saved instance (`UpdateModelMixin`): its own fields as written, tags, notes and custom fields
  // read again; 3.0 reads the whole document again after the save (`get_queryset().get(pk=…)`).
  // Its `modified` is the instance's in memory, which `update_filename_and_move_files` refreshed before it moved the
  // stored one: older than what any later read shows.
  const saved = behaviour.v3Fields ? null : answer();
  if (saved && 'modified' in saved) saved.modified = inMemoryModified;
  ctx.hooks.afterSave?.(doc.id);
  // 2.x then calls `get_object()`, which filters by permission: a document the user just gave away is 404, after the
  // commit and before "Document Updated" (no webhook).
  if (behaviour.ownerChangeAnswers404 && !ctx.user.sees('documents', doc)) return notFound('Document');
  const fresh = answer();
  const answerBody = saved ? { ...saved, ...pick(fresh, ['tags', 'notes', 'custom_fields']) } : fresh;
  // The response is built before "Document Updated" runs, as in Paperless (workflow changes are not in it).
  ctx.hooks.documentUpdated(doc.id);
  return json(200, answerBody);
}

/**
 * `DocumentViewSet.notes`: looks the document up without the permission filter, then wants view permission to
 * read and change permission to add or delete (403 text otherwise). A note moves `modified` (after its audit
 * entry, which names no actor for a token request), but fires no workflow: no webhook.
 */
const notes: SimHandler = async (ctx) => {
  const raw = ctx.match[1];
  const doc = /^\d+$/.test(raw) ? ctx.store.getDocument(Number(raw)) : undefined;
  if (!doc) return json(404, { detail: 'Not found.' });
  if (!ctx.user.sees('documents', doc)) return { status: 403, text: 'Insufficient permissions to view notes' };
  if (ctx.method !== 'GET' && !ctx.user.mayChange('documents', doc)) {
    return { status: 403, text: `Insufficient permissions to ${ctx.method === 'POST' ? 'create' : 'delete'} notes` };
  }
  if (ctx.method === 'POST') {
    const body = (await ctx.json()) as Record<string, unknown>;
    if (typeof body?.note !== 'string') return json(200, { error: 'Error saving note, check logs for more detail.' });
    // `log_create` without an actor: the middleware's, which a token request does not have.
    addNote(ctx.store, doc, body.note, ctx.user.id, null);
  } else if (ctx.method === 'DELETE') {
    const id = ctx.params.get('id');
    if (!id) return json(400, { id: 'This field is required.' });
    if (!doc.notes.some((n) => n.id === Number(id))) return json(404, { detail: 'No Note matches the given query.' });
    recordNote(ctx.store, doc.id, Number(id), false, null);
    doc.notes = doc.notes.filter((n) => n.id !== Number(id));
    doc.modified = ctx.store.now();
  }
  return json(200, structuredClone(doc.notes));
};

/** A note by `author`, logged for `actor`: the auditlog middleware's (null for a token request, the person in a browser session). */
export function addNote(
  store: SimContext['store'],
  doc: SimDocument,
  text: string,
  author: number,
  actor: number | null,
): void {
  const note = store.newNote(text, author);
  doc.notes.push(note);
  recordNote(store, doc.id, note.id, true, actor);
  doc.modified = store.now();
}

/**
 * `DocumentViewSet.history`: 400 text when the audit log is off; a non-superuser needs `auditlog.view_logentry`
 * and must own the document (or it is unowned), else 403 text. The document is looked up without the permission
 * filter. One unpaginated list, newest first.
 */
const EXTENSIONS: Record<string, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/tiff': '.tiff',
  'text/plain': '.txt',
};

/**
 * `GET /api/documents/{id}/download/` as `serve_file` (views.py) answers it: the archived PDF unless
 * `original=true` or there is none, with Paperless's public file name ("<created> <correspondent> <title>.pdf")
 * in Content-Disposition. A missing document is 404; one the user may not view is 403 as plain text (2.x reads
 * it without the permission filter and checks `view_document` owner-aware). The bytes are made up: a small
 * file that says which version it is, padded to `file_size` when a test set one.
 */
const download: SimHandler = (ctx) => {
  const raw = ctx.match[1];
  const doc = /^\d+$/.test(raw) ? ctx.store.getDocument(Number(raw)) : undefined;
  if (!doc) return notFound('Document');
  if (!ctx.user.sees('documents', doc)) return { status: 403, text: 'Insufficient permissions' };
  const archive = ctx.params.get('original') !== 'true' && doc.has_archive;
  const correspondent = doc.correspondent == null ? null : ctx.store.object('correspondents', doc.correspondent)?.name;
  const stem = [doc.created, correspondent, doc.title].filter(Boolean).join(' ');
  const filename = `${stem}${archive ? '.pdf' : (EXTENSIONS[doc.mime_type] ?? '')}`.replace(/[/\\:*?"<>|]/g, '-');
  const pdf = archive || doc.mime_type === 'application/pdf';
  const head = `${pdf ? '%PDF-1.7\n% ' : ''}${archive ? 'archived PDF' : 'original file'} of document ${doc.id}: ${doc.title}\n`;
  let bytes = Buffer.from(head);
  if (!archive && doc.file_size !== undefined && doc.file_size > bytes.length)
    bytes = Buffer.concat([bytes, Buffer.alloc(doc.file_size - bytes.length, 0x20)]);
  const ascii = filename
    .replace(/,/g, '_')
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '');
  return {
    status: 200,
    bytes,
    headers: {
      'content-type': archive ? 'application/pdf' : doc.mime_type,
      'content-disposition': `attachment; filename="${ascii}"; filename*=utf-8''${encodeURIComponent(filename.replace(/,/g, '_'))}`,
    },
  };
};

const history: SimHandler = (ctx) => {
  if (!ctx.store.audit.enabled) return { status: 400, text: 'Audit log is disabled' };
  const raw = ctx.match[1];
  const doc = /^\d+$/.test(raw) ? ctx.store.getDocument(Number(raw)) : undefined;
  if (!doc) return json(404, { detail: 'Not found.' });
  const owns = doc.owner === null || doc.owner === ctx.user.id || ctx.user.superuser;
  if (!ctx.user.has('view_logentry') || !owns) return { status: 403, text: 'Insufficient permissions' };
  return json(200, historyOf(ctx.store, doc));
};

const bulk: SimHandler = async (ctx) => {
  bulkEdit(ctx.store, await ctx.json({ jsonOnly: true }), ctx.hooks, ctx.user, { behaviour: behaviourOf(ctx.profile) });
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
  {
    pattern: '/api/documents/',
    regex: /^\/api\/documents\/$/,
    methods: ['GET'],
    handler: list,
    permission: documentPermission,
  },
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
    pattern: '/api/documents/{id}/download/',
    regex: /^\/api\/documents\/([^/]+)\/download\/$/,
    methods: ['GET'],
    handler: download,
    permission: documentPermission,
  },
  // DocumentViewSet's permission classes: the model permission `view_document`, no object check.
  {
    pattern: '/api/documents/{id}/history/',
    regex: /^\/api\/documents\/([^/]+)\/history\/$/,
    methods: ['GET'],
    handler: history,
    permission: documentPermission,
  },
  {
    pattern: '/api/documents/{id}/',
    regex: /^\/api\/documents\/([^/]+)\/$/,
    methods: ['GET', 'PUT', 'PATCH', 'DELETE'],
    handler: detail,
    permission: documentPermission,
  },
];
