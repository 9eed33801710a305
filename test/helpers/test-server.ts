import './loopback-only.js';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { loadConfig, type Config, type ServiceTimings } from '../../server/config.js';
import { createMemoryLogger } from '../../server/log.js';
import type { ServiceOptions } from '../../server/compose.js';
import { startServer, type RunningServer } from '../../server/server.js';

export const ADMIN = { username: 'admin', password: 'correct horse battery staple' };
export const API_TOKEN = 'test-api-token-0123456789abcdef';

export interface TestServer extends RunningServer {
  logs: string[];
  dataDir: string;
  rulesDir: string;
}

export function tempDir(prefix = 'dms-rules-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Backoff and pauses shortened so tests compute instead of waiting; the same code paths run. */
export const TEST_TIMINGS: ServiceTimings = {
  dmsRetryBaseMs: 10,
  failedRunRetryMs: 50,
  catchUpRetryMs: 50,
  webhook: { arrivalPollMs: 25 },
};

/** Starts the real server on a free loopback port with fresh data and rules dirs. */
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
  const running = await startServer(config, logger, options);
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

// Requests go through node's http client on kept-alive connections: fetch's own work per request cost API tests
// more CPU than the server's answer. The server sees what fetch sends (its default headers included), and
// redirects are not followed (fetch's `redirect: 'manual'`).
const agent = new http.Agent({ keepAlive: true });
const FETCH_DEFAULT_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

function request(
  url: string,
  method: string,
  given: Record<string, string>,
  body: string | undefined,
  retried = false,
): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string | number> = { ...FETCH_DEFAULT_HEADERS };
  for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const data =
            encoding === 'gzip' ? zlib.gunzipSync(raw) : encoding === 'deflate' ? zlib.inflateSync(raw) : raw;
          const answer = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
          resolve({ status: res.statusCode ?? 0, headers: answer, text: data.toString('utf8') });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed while idle: the request never reached it, so it goes again on a new one.
      if (req.reusedSocket && !retried && err.code === 'ECONNRESET') resolve(request(url, method, given, body, true));
      else reject(err);
    });
    req.end(body);
  });
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
  const res = await request(base + route, options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body);
  const text = res.text;
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
