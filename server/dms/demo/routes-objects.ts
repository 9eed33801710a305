import { behaviourOf } from './profiles.js';
import { fail, json, notFound, type SimContext, type SimHandler } from './http-kit.js';
import { pageRequest, paginate } from './pagination.js';
import { permissionsOf } from './routes-accounts.js';
import type { SimRoute } from './routes-documents.js';
import { documentCounts, objectToWire } from './serialize.js';
import { sortedObjects } from './store.js';
import { MODEL_NAMES, OBJECT_KINDS, SIM_USER, type ObjectKind, type SimObject } from './sim-types.js';
import { permissionFor } from './sim-users.js';

const NAME_LOOKUPS: Record<string, (v: string, n: string) => boolean> = {
  name__iexact: (v, n) => v.toLowerCase() === n.toLowerCase(),
  name__icontains: (v, n) => v.toLowerCase().includes(n.toLowerCase()),
  name__istartswith: (v, n) => v.toLowerCase().startsWith(n.toLowerCase()),
  name__iendswith: (v, n) => v.toLowerCase().endsWith(n.toLowerCase()),
};

// Django's slugify: accents folded, lower case, non-word characters dropped, spaces to hyphens.
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[-\s]+/g, '-');
}

function textColor(color: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16) / 256);
  return Math.sqrt(0.299 * r * r + 0.587 * g * g + 0.114 * b * b) < 0.53 ? '#ffffff' : '#000000';
}

function filterObjects(ctx: SimContext, objects: SimObject[]): SimObject[] | { errors: Record<string, string[]> } {
  let result = objects;
  for (const [name, value] of ctx.params) {
    if (name in NAME_LOOKUPS) result = result.filter((o) => NAME_LOOKUPS[name](o.name, value));
    else if (name === 'id') result = result.filter((o) => o.id === Number(value));
    else if (name === 'id__in') {
      const ids = value.split(',').map((s) => s.trim());
      if (!ids.every((s) => /^\d+$/.test(s))) return { errors: { id__in: ['Enter a number.'] } };
      result = result.filter((o) => ids.includes(String(o.id)));
    } else if (name === 'is_root' && ['true', 'false'].includes(value))
      result = result.filter((o) => (o.parent == null) === (value === 'true'));
  }
  return result;
}

function listHandler(kind: ObjectKind): SimHandler {
  return (ctx) => {
    if (ctx.method === 'POST') return create(ctx, kind);
    const filtered = filterObjects(
      ctx,
      sortedObjects(ctx.store, kind).filter((o) => ctx.user.sees(kind, o)),
    );
    if (!Array.isArray(filtered)) return json(400, filtered.errors);
    const request = pageRequest(ctx.params);
    const counts = documentCounts(ctx.store, kind);
    const page =
      request &&
      paginate(
        filtered.length,
        (s, e) => filtered.slice(s, e).map((o) => objectToWire(ctx.store, kind, o, counts)),
        request,
        `${ctx.origin}/api/${kind}/`,
        ctx.params,
      );
    if (!page) return json(404, { detail: 'Invalid page.' });
    const body: Record<string, unknown> = { count: page.count, next: page.next, previous: page.previous };
    if (ctx.apiVersion < 10) body.all = filtered.map((o) => o.id);
    body.results = page.results;
    if (kind === 'tags') body.display_count = page.count;
    return json(200, body);
  };
}

async function create(ctx: SimContext, kind: ObjectKind) {
  const body = (await ctx.json()) as Record<string, unknown>;
  const name = typeof body?.name === 'string' ? body.name.trim() : '';
  if (!name) return json(400, { name: ['This field is required.'] });
  const existing = ctx.store.objects[kind];
  if (kind === 'custom_fields') {
    if (existing.some((o) => o.name === name))
      return json(400, { name: ['custom field with this name already exists.'] });
    const dataType = String(body.data_type ?? '');
    const extra = (body.extra_data ?? {}) as { select_options?: unknown; default_currency?: string | null };
    if (dataType === 'select' && (!Array.isArray(extra.select_options) || extra.select_options.length === 0)) {
      return json(400, { error: ['extra_data.select_options must be a valid list'] });
    }
    const created = ctx.store.insertObject(kind, {
      name,
      data_type: dataType,
      extra_data: { select_options: extra.select_options ?? [], default_currency: extra.default_currency ?? null },
    });
    return json(201, objectToWire(ctx.store, kind, created, null));
  }
  // An absent owner becomes the caller; `(name, owner)` and unowned names must be unique (exact match).
  const owner = 'owner' in body ? (body.owner as number | null) : SIM_USER.id;
  if (existing.some((o) => o.name === name && (o.owner === owner || (owner === null && o.owner == null)))) {
    return json(400, { error: ['Object violates owner / name unique constraint'] });
  }
  const object: Omit<SimObject, 'id'> = { slug: slugify(name), name };
  if (kind === 'tags') {
    const color = typeof body.color === 'string' ? body.color : '#a6cee3';
    if (!/^#[0-9a-fA-F]{6}$/.test(color)) return json(400, { color: ['Invalid color.'] });
    Object.assign(object, { color, text_color: textColor(color) });
  }
  if (kind === 'storage_paths') {
    // Like Paperless: a storage path is a path template, and one without is refused.
    if (typeof body.path !== 'string' || body.path.trim() === '')
      return json(400, { path: ['This field is required.'] });
    object.path = body.path;
  }
  Object.assign(object, {
    match: String(body.match ?? ''),
    matching_algorithm: Number.isInteger(body.matching_algorithm) ? body.matching_algorithm : 1,
    is_insensitive: body.is_insensitive !== false,
  });
  if (kind === 'tags') object.is_inbox_tag = body.is_inbox_tag === true;
  object.owner = owner;
  // Tags have a parent from 2.19.0 (the tag tree).
  if (kind === 'tags' && behaviourOf(ctx.profile).tagHierarchy)
    object.parent = Number.isInteger(body.parent) ? body.parent : null;
  const created = ctx.store.insertObject(kind, object);
  return json(201, objectToWire(ctx.store, kind, created, null));
}

function detailHandler(kind: ObjectKind): SimHandler {
  return async (ctx) => {
    const raw = ctx.match[1];
    if (!/^\d+$/.test(raw)) return fail(404, { detail: 'Not found.' });
    const found = ctx.store.object(kind, Number(raw));
    const object = found && ctx.user.sees(kind, found) ? found : notFound(MODEL_NAMES[kind]);
    if (ctx.method === 'DELETE') {
      ctx.store.deleteObject(kind, object.id);
      return { status: 204 };
    }
    if (ctx.method === 'PATCH' || ctx.method === 'PUT') {
      const body = (await ctx.json()) as Record<string, unknown>;
      for (const key of [
        'name',
        'match',
        'matching_algorithm',
        'is_insensitive',
        'color',
        'is_inbox_tag',
        'parent',
        'path',
        'owner',
        'extra_data',
      ]) {
        if (key in body && key in object) object[key] = body[key];
      }
      if (typeof body.name === 'string' && 'slug' in object) object.slug = slugify(body.name);
    }
    return json(200, objectToWire(ctx.store, kind, object, documentCounts(ctx.store, kind)));
  };
}

// UiSettingsView.get (documents/views.py): the caller, and its permissions without the app label.
const uiSettings: SimHandler = (ctx) => {
  const account = ctx.store.account(ctx.user.id);
  const user: Record<string, unknown> = {
    id: ctx.user.id,
    username: ctx.user.username,
    is_staff: account?.is_staff ?? ctx.user.superuser,
    is_superuser: ctx.user.superuser,
    groups: account?.groups ?? [],
  };
  if (account?.first_name) user.first_name = account.first_name;
  if (account?.last_name) user.last_name = account.last_name;
  const permissions = account ? permissionsOf(ctx.store, account, true).map((p) => p.replace(/^\w+\./, '')) : [];
  return json(200, {
    user,
    settings: { version: ctx.profile.release, auditlog_enabled: ctx.store.audit.enabled },
    permissions,
  });
};

export const objectRoutes: SimRoute[] = [
  ...OBJECT_KINDS.flatMap((kind): SimRoute[] => [
    {
      pattern: `/api/${kind}/`,
      regex: new RegExp(`^/api/${kind}/$`),
      methods: ['GET', 'POST'],
      handler: listHandler(kind),
      permission: (m: string) => permissionFor(m, kind),
    },
    {
      pattern: `/api/${kind}/{id}/`,
      regex: new RegExp(`^/api/${kind}/([^/]+)/$`),
      methods: ['GET', 'PUT', 'PATCH', 'DELETE'],
      handler: detailHandler(kind),
      permission: (m: string) => permissionFor(m, kind),
    },
  ]),
  // UiSettingsView: `PaperlessObjectPermissions` maps GET to `documents.view_uisettings` (2.16 through 3.0.5), so a
  // non-superuser without it gets DRF's 403, even for its own settings.
  {
    pattern: '/api/ui_settings/',
    regex: /^\/api\/ui_settings\/$/,
    methods: ['GET'],
    handler: uiSettings,
    permission: () => 'view_uisettings',
  },
];
