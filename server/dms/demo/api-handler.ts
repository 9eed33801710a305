import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  parseJsonBody,
  readBody,
  serialized,
  SimHttpError,
  writeResult,
  type SimHooks,
  type SimResult,
} from './http-kit.js';
import { accountRoutes } from './routes-accounts.js';
import { documentRoutes, type SimRoute } from './routes-documents.js';
import { objectRoutes } from './routes-objects.js';
import { trashRoutes } from './routes-trash.js';
import { requestedApiVersion, versionHeaders, type SimProfile } from './profiles.js';
import { PERMISSION_DENIED, type SimUser } from './sim-users.js';
import type { SimStore } from './store.js';
import { webPage } from './web-pages.js';

export interface ApiHandlerDeps {
  store: SimStore;
  hooks: SimHooks;
  token: string;
  username: string;
  password: string;
  profile: SimProfile;
  /** The superuser (`token`, Basic auth) and any further users by their token. */
  users: { owner: SimUser; byToken: Map<string, SimUser> };
  /** Delays an answer as a slow server would (see slow-dms.ts); `since` is when its handling began (`performance.now()`). */
  pace?(result: SimResult, since: number): Promise<void>;
}

const ROUTES: SimRoute[] = [...documentRoutes, ...objectRoutes, ...accountRoutes, ...trashRoutes];
const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' };

function authenticate(req: IncomingMessage, deps: ApiHandlerDeps): SimUser | SimResult {
  const header = req.headers.authorization ?? '';
  const token = /^token\s+(\S+)$/i.exec(header);
  if (token) {
    if (token[1] === deps.token) return deps.users.owner;
    return (
      deps.users.byToken.get(token[1]) ?? {
        status: 401,
        body: { detail: 'Invalid token.' },
        headers: { 'www-authenticate': 'Token' },
      }
    );
  }
  const basic = /^basic\s+(\S+)$/i.exec(header);
  if (basic) {
    const [user, ...rest] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
    if (user === deps.username && rest.join(':') === deps.password) return deps.users.owner;
    return {
      status: 401,
      body: { detail: 'Invalid username/password.' },
      headers: { 'www-authenticate': 'Basic realm="api"' },
    };
  }
  // Bearer and anything else count as anonymous, as in DRF.
  return { status: 401, body: NOT_PROVIDED, headers: { 'www-authenticate': 'Token' } };
}

async function tokenEndpoint(req: IncomingMessage, deps: ApiHandlerDeps): Promise<SimResult> {
  const raw = await readBody(req);
  const type = req.headers['content-type'] ?? '';
  const body = type.includes('json')
    ? (parseJsonBody(raw, type, false) as Record<string, unknown>)
    : Object.fromEntries(new URLSearchParams(raw));
  if (body.username === deps.username && body.password === deps.password)
    return { status: 200, body: { token: deps.token } };
  return { status: 400, body: { non_field_errors: ['Unable to log in with provided credentials.'] } };
}

/** The route pattern a request counts under, e.g. `/api/documents/{id}/`; `(fallthrough)` for no API route. */
export function routePattern(pathname: string): string {
  const route = ROUTES.find((r) => r.regex.test(pathname));
  return route?.pattern ?? (pathname === '/api/token/' ? '/api/token/' : '(fallthrough)');
}

/** Answers one request to `/api/…` (or any other path) the way the profile's Paperless-ngx release would. */
export async function handleApi(req: IncomingMessage, res: ServerResponse, deps: ApiHandlerDeps): Promise<void> {
  const begun = performance.now();
  const url = new URL(req.url ?? '/', 'http://sim');
  const method = req.method ?? 'GET';
  const route = ROUTES.find((r) => r.regex.test(url.pathname));
  const isToken = url.pathname === '/api/token/';

  // Version headers only once the caller is authenticated (ApiVersionMiddleware).
  let headers: Record<string, string> = {};
  try {
    if (isToken && method === 'POST') return writeResult(res, await tokenEndpoint(req, deps), {});
    if (!route) return writeResult(res, webPage(url, deps.store), {}); // the demo's pages, else Paperless's redirect to sign in (§2)
    // DRF determines the version before it authenticates: a bad version is 406 even with a bad token, and unauthenticated
    // answers carry no version headers (ApiVersionMiddleware adds them only for an authenticated user).
    const version = requestedApiVersion(deps.profile, req.headers.accept);
    if (version === null)
      return writeResult(res, { status: 406, body: { detail: 'Invalid version in "Accept" header.' } }, {});
    const user = authenticate(req, deps);
    if (!('superuser' in user)) return writeResult(res, user, {});
    headers = versionHeaders(deps.profile);
    if (!route.methods.includes(method)) {
      const allow = [...route.methods, 'HEAD', 'OPTIONS'].join(', ');
      return writeResult(
        res,
        { status: 405, body: { detail: `Method "${method}" not allowed.` }, headers: { allow } },
        headers,
      );
    }
    const permission = route.permission?.(method);
    if (permission && !user.has(permission)) return writeResult(res, { status: 403, body: PERMISSION_DENIED }, headers);
    let bodyText: string | null = null;
    const result = await route.handler({
      store: deps.store,
      method,
      url,
      params: url.searchParams,
      match: route.regex.exec(url.pathname) as RegExpExecArray,
      origin: `http://${req.headers.host ?? 'localhost'}`,
      apiVersion: version,
      user,
      profile: deps.profile,
      hooks: deps.hooks,
      async json(options = {}) {
        bodyText ??= await readBody(req);
        return parseJsonBody(bodyText, req.headers['content-type'] ?? '', options.jsonOnly ?? false);
      },
    });
    if (!deps.pace) return writeResult(res, result, headers);
    const answer = serialized(result);
    await deps.pace(result, begun);
    writeResult(res, answer, headers);
  } catch (err) {
    if (err instanceof SimHttpError) return writeResult(res, err.result, headers);
    writeResult(res, { status: 500, text: 'Internal Server Error' }, {});
  }
}
