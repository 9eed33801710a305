import './loopback-only.js';
import { loadConfig, type Config, type ServiceTimings } from '../../server/config.js';
import { createMemoryLogger } from '../../server/log.js';
import type { ServiceOptions } from '../../server/compose.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { tempDir } from './temp-dir.js';

export const ADMIN = { username: 'admin', password: 'correct horse battery staple' };
export const API_TOKEN = 'test-api-token-0123456789abcdef';

export interface TestServer extends RunningServer {
  logs: string[];
  dataDir: string;
  rulesDir: string;
}

export { tempDir };

/** Backoff and pauses shortened so tests compute instead of waiting; the same code paths run. */
export const TEST_TIMINGS: ServiceTimings = {
  dmsRetryBaseMs: 10,
  failedRunRetryMs: 50,
  catchUpRetryMs: 50,
  webhook: { arrivalPollMs: 25 },
};

/** Seeds the shipped example rules into the test's empty rules dir, as a first start does. */
export const WITH_EXAMPLES: ServiceOptions = { exampleRules: true };

/**
 * Starts the real server on a free loopback port with fresh data and rules dirs. The example rules are seeded
 * into an empty rules dir only when a test asks for them (`WITH_EXAMPLES`), as a first start does.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
  options: ServiceOptions = {},
): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? tempDir('dms-rules-data-');
  const rulesDir = overrides.rulesDir ?? tempDir('dms-rules-rules-');
  const config = loadConfig({
    // Rules are evaluated on the main thread unless a test asks for the worker pool: a worker boots the
    // TypeScript loader again, which costs more than most tests' whole run.
    env: {
      SVC_ADMIN_USER: ADMIN.username,
      SVC_ADMIN_PASSWORD: ADMIN.password,
      SVC_API_TOKEN: API_TOKEN,
      SVC_EVAL_WORKERS: '0',
      ...env,
    },
    overrides: { host: '127.0.0.1', port: 0, dataDir, rulesDir, timings: TEST_TIMINGS, ...overrides },
  });
  const logger = createMemoryLogger();
  const running = await startServer(config, logger, { exampleRules: false, ...options });
  return { ...running, logs: logger.lines, dataDir, rulesDir };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** Sent as-is (e.g. raw YAML) instead of JSON. */
  rawBody?: string;
  cookie?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface CallResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** One HTTP call with JSON in and out; never throws on an error status. */
export async function call<T = Record<string, unknown>>(
  base: string,
  route: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] ??= 'application/yaml';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.cookie) headers.cookie = options.cookie;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(base + route, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the test sees the raw text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Signs in as the test admin and returns the Cookie header value. */
export async function login(base: string, credentials = ADMIN): Promise<string> {
  const res = await call(base, '/api/auth', { body: credentials });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return setCookie.split(';')[0];
}

/** Saves new text over a rule file (by name) through the editor's API, as the signed-in admin; the save's answer. */
export async function saveRuleFile(base: string, name: string, text: string): Promise<CallResult> {
  const cookie = await login(base);
  const files = (await call<{ files: Array<{ id: string; name: string }> }>(base, '/api/ui/rules', { cookie })).body
    .files;
  const id = files.find((f) => f.name === name)?.id;
  if (!id) throw new Error(`no rule file "${name}" in ${files.map((f) => f.name).join(', ')}`);
  return call(base, `/api/ui/rules/${id}`, { cookie, method: 'PUT', rawBody: text });
}
