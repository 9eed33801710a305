// The one place the UI talks to the server: same-origin fetch, JSON in and out, errors as ApiError.
import type { FileProblem } from './types.js';

/** An error answer from the service, with what the UI needs to show it well. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly line?: number,
    readonly column?: number,
    /** Seconds, from Retry-After (429, 503). */
    readonly retryAfter?: number,
    /** A refused rule file: every problem, each with its range. */
    readonly problems?: FileProblem[],
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners: Listener[] = [];

/** Called when any request answers 401, so the app can return to the login page. */
export function onUnauthorized(listener: Listener): void {
  unauthorizedListeners.push(listener);
}

const unreachableListeners: Listener[] = [];

/** Called when a request cannot reach the service at all (it stopped, or the network is away). */
export function onUnreachable(listener: Listener): void {
  unreachableListeners.push(listener);
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  /** Sent as raw text (rule file YAML). */
  text?: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** A 401 here is an expected answer (login, session check), not an expired session. */
  quiet401?: boolean;
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.text !== undefined) {
    headers['content-type'] = 'application/yaml; charset=utf-8';
    body = options.text;
  }
  let res: Response;
  try {
    res = await fetch(buildUrl(path, options.query), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      credentials: 'same-origin',
    });
  } catch {
    for (const l of unreachableListeners) l();
    throw new ApiError('The dms-rules service cannot be reached. Is it running?', 0);
  }
  const raw = await res.text();
  let data: unknown;
  try {
    data = raw ? JSON.parse(raw) : null;
  } catch {
    data = { error: raw.slice(0, 300) };
  }
  if (!res.ok) {
    const obj = (data ?? {}) as { error?: unknown; line?: unknown; column?: unknown; problems?: unknown };
    const retry = Number(res.headers.get('retry-after'));
    const err = new ApiError(
      typeof obj.error === 'string' && obj.error ? obj.error : `The service answered ${res.status} ${res.statusText}.`,
      res.status,
      typeof obj.line === 'number' ? obj.line : undefined,
      typeof obj.column === 'number' ? obj.column : undefined,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
      Array.isArray(obj.problems) ? (obj.problems as FileProblem[]) : undefined,
    );
    if (res.status === 401 && !options.quiet401) for (const l of unauthorizedListeners) l();
    throw err;
  }
  return data as T;
}

/** The message of anything thrown. The page's copy of server/error-message.ts: the UI shares only types with the server. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
