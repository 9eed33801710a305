import { fail, json, notFound, type SimContext, type SimHandler } from './http-kit.js';
import { pageRequest, paginate } from './pagination.js';
import type { SimRoute } from './routes-documents.js';
import type { SimAccount, SimGroup } from './sim-types.js';
import type { SimStore } from './store.js';

// `/api/users/` and `/api/groups/`: UserViewSet and GroupViewSet (paperless/views.py), UserSerializer and
// GroupSerializer (paperless/serialisers.py), UserFilterSet and GroupFilterSet (paperless/filters.py).
// Read-only here: the simulator answers 405 to writes, which Paperless allows to users with add/change/delete_user.

/** Usernames UserViewSet leaves out of its queryset (list and detail). */
const HIDDEN_USERNAMES = ['consumer', 'AnonymousUser'];

// The models whose permissions a superuser holds; Paperless lists every permission in its database (several hundred,
// from Django's own apps too), the simulator only those of the apps a rule service deals with.
const APP_MODELS: Record<string, string[]> = {
  auditlog: ['logentry'],
  auth: ['group', 'permission', 'user'],
  documents: [
    'correspondent',
    'customfield',
    'customfieldinstance',
    'document',
    'documenttype',
    'note',
    'paperlesstask',
    'savedview',
    'savedviewfilterrule',
    'sharelink',
    'sharelinkbundle',
    'storagepath',
    'tag',
    'uisettings',
    'workflow',
    'workflowaction',
    'workflowactionemail',
    'workflowactionwebhook',
    'workflowrun',
    'workflowtrigger',
  ],
  paperless: ['applicationconfiguration'],
  paperless_mail: ['mailaccount', 'mailrule', 'processedmail'],
};
const APP_OF_MODEL = new Map(
  Object.entries(APP_MODELS).flatMap(([app, models]) => models.map((model) => [model, app] as const)),
);

const ALL_PERMISSIONS = Object.entries(APP_MODELS).flatMap(([app, models]) =>
  models.flatMap((model) => ['add', 'change', 'delete', 'view'].map((action) => `${app}.${action}_${model}`)),
);

/** `app_label.codename`, e.g. `documents.view_document` (`view_user` → `auth.view_user`). */
function qualified(codename: string): string {
  const model = codename.slice(codename.indexOf('_') + 1);
  return `${APP_OF_MODEL.get(model) ?? 'documents'}.${codename}`;
}

/** Permission's model ordering: app label, model, codename. */
function sortedCodenames(codenames: string[]): string[] {
  const key = (c: string) => `${qualified(c).split('.')[0]} ${c.slice(c.indexOf('_') + 1)} ${c}`;
  return [...new Set(codenames)].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Django's `get_group_permissions()` (with `own`: `get_all_permissions()`) as `app.codename`: a Python set,
 * rendered in no fixed order (sorted here); a superuser's holds every permission.
 */
export function permissionsOf(store: SimStore, user: SimAccount, own: boolean): string[] {
  if (user.is_superuser) return ALL_PERMISSIONS;
  const codenames = [
    ...(own ? user.user_permissions : []),
    ...user.groups.flatMap((id) => store.group(id)?.permissions ?? []),
  ];
  return [...new Set(codenames.map(qualified))].sort();
}

function userToWire(store: SimStore, user: SimAccount): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    // ObfuscatedPasswordField: one '*' per character of the stored hash, at least ten.
    password: '*'.repeat(Math.max(10, user.password.length)),
    first_name: user.first_name,
    last_name: user.last_name,
    date_joined: user.date_joined,
    is_staff: user.is_staff,
    is_active: user.is_active,
    is_superuser: user.is_superuser,
    groups: [...user.groups].sort((a, b) => a - b),
    user_permissions: sortedCodenames(user.user_permissions),
    inherited_permissions: permissionsOf(store, user, false),
    is_mfa_enabled: false,
  };
}

function groupToWire(group: SimGroup): Record<string, unknown> {
  return { id: group.id, name: group.name, permissions: sortedCodenames(group.permissions) };
}

// CHAR_KWARGS (documents/filters.py); django-filter skips empty values and unknown parameters.
const LOOKUPS: Record<string, (value: string, query: string) => boolean> = {
  istartswith: (v, q) => v.startsWith(q),
  iendswith: (v, q) => v.endsWith(q),
  icontains: (v, q) => v.includes(q),
  iexact: (v, q) => v === q,
};

interface AccountKind<T> {
  path: string;
  /** Model name in "No X matches the given query." */
  model: string;
  /** The filtered, ordered field (`username` or `name`). */
  field: 'username' | 'name';
  all(store: SimStore): T[];
  toWire(store: SimStore, item: T): Record<string, unknown>;
}

function listHandler<T extends { id: number; username?: string; name?: string }>(kind: AccountKind<T>): SimHandler {
  return (ctx: SimContext) => {
    const text = (item: T) => String(item[kind.field]).toLowerCase();
    let items = kind.all(ctx.store);
    for (const [name, value] of ctx.params) {
      const lookup = name.startsWith(`${kind.field}__`) ? LOOKUPS[name.slice(kind.field.length + 2)] : undefined;
      if (lookup && value !== '') items = items.filter((item) => lookup(text(item), value.toLowerCase()));
    }
    // The queryset is ordered by Lower(field); `ordering` accepts only that field (anything else is ignored).
    const descending = (ctx.params.get('ordering') ?? '').split(',').some((o) => o.trim() === `-${kind.field}`);
    items = [...items].sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0) * (descending ? -1 : 1));
    const request = pageRequest(ctx.params);
    const page =
      request &&
      paginate(
        items.length,
        (s, e) => items.slice(s, e).map((i) => kind.toWire(ctx.store, i)),
        request,
        `${ctx.origin}${kind.path}`,
        ctx.params,
      );
    if (!page) return json(404, { detail: 'Invalid page.' });
    const body: Record<string, unknown> = { count: page.count, next: page.next, previous: page.previous };
    if (ctx.apiVersion < 10) body.all = items.map((i) => i.id);
    body.results = page.results;
    return json(200, body);
  };
}

function detailHandler<T extends { id: number }>(kind: AccountKind<T>): SimHandler {
  return (ctx: SimContext) => {
    const raw = ctx.match[1];
    if (!/^\d+$/.test(raw)) return fail(404, { detail: 'Not found.' });
    const item = kind.all(ctx.store).find((i) => i.id === Number(raw));
    return json(200, kind.toWire(ctx.store, item ?? notFound(kind.model)));
  };
}

const USERS: AccountKind<SimAccount> = {
  path: '/api/users/',
  model: 'User',
  field: 'username',
  all: (store) => store.users.filter((u) => !HIDDEN_USERNAMES.includes(u.username)),
  toWire: userToWire,
};

const GROUPS: AccountKind<SimGroup> = {
  path: '/api/groups/',
  model: 'Group',
  field: 'name',
  all: (store) => store.groups,
  toWire: (_store, group) => groupToWire(group),
};

function routesFor<T extends { id: number; username?: string; name?: string }>(kind: AccountKind<T>): SimRoute[] {
  // PaperlessObjectPermissions: a user or group has no owner, so the model permission (`view_user`) is all it takes.
  const permission = () => `view_${kind.model.toLowerCase()}`;
  const base = kind.path.slice(0, -1);
  return [
    { pattern: kind.path, regex: new RegExp(`^${base}/$`), methods: ['GET'], handler: listHandler(kind), permission },
    {
      pattern: `${kind.path}{id}/`,
      regex: new RegExp(`^${base}/([^/]+)/$`),
      methods: ['GET'],
      handler: detailHandler(kind),
      permission,
    },
  ];
}

export const accountRoutes: SimRoute[] = [...routesFor(USERS), ...routesFor(GROUPS)];
