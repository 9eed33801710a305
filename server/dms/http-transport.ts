import { Pool } from 'undici';
import type { Logger } from '../log.js';
import {
  CLIENT_API_VERSIONS,
  isVersionRejection,
  pickApiVersion,
  unsupportedServerMessage,
  versionFacts,
  type ServerVersionFacts,
} from './api-version.js';
import { dmsMessage } from './dms-message.js';
import { forbiddenHint } from './permission-hint.js';
import { DmsError, DmsNotFoundError } from './dms-errors.js';
import { readCapped } from './file-download.js';
import { bodyText, BodyTooLargeError, decodeBody, ownBuffer, readBodyBytes } from './body-text.js';
import { parseJsonOffThread } from './json-off-thread.js';
import { redact, type Secrets } from '../redaction.js';
import { backoffDelay, parseRetryAfter, sleep } from './retry-policy.js';
import { createSemaphore } from './semaphore.js';
import { errorMessage } from '../error-message.js';

export interface TransportOptions {
  url: string;
  token: string | null;
  timeoutMs: number;
  maxInFlight: number;
  retries: number;
  retryBaseMs: number;
  /** A Retry-After longer than this is not waited for: the call fails and says so. */
  maxRetryAfterMs: number;
  logger?: Logger;
  /** Called as an attempt finds no dms to talk to (connection refused or cut, a proxy's 502), before any retry. */
  onNoDms?: (message: string) => void;
  /** The largest answer read (default DEFAULT_MAX_ANSWER_BYTES): a larger one is cut off and the call fails. */
  maxAnswerBytes?: number;
  /** The service's other secrets, redacted (with the token) from whatever the dms echoes back. */
  secrets?: Secrets;
}

/** The default byte limit of one dms answer (SVC_DMS_MAX_ANSWER_MB): a page of 100 documents with 640 KB of text each. */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Answers above this are decoded and parsed in a worker thread (json-off-thread.ts), not on the main thread. */
export const OFF_THREAD_BYTES = 16 * 1024 * 1024;

const ERROR_TEXT_BYTES = 64 * 1024;

/**
 * How long close() lets requests under way finish before it cuts them off. By then the HTTP server and the jobs
 * have stopped, so what is left is a read for a caller that is going away: a dms hanging mid-answer must not
 * hold the process until its timeout.
 */
const CLOSE_GRACE_MS = 1000;

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export interface DmsRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path below the base URL, starting with `/api/` and ending in `/` (Paperless redirects anything else). */
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** Safe to send twice. Non-idempotent calls are retried only when the dms certainly did not act (429, refused). */
  idempotent: boolean;
  /** Message for a 404; without it a 404 is a DmsError like any other failure. */
  notFound?: string;
  /** A file, not JSON: a 2xx answer's body is returned as `bytes`, at most this many (DmsFileTooLargeError). */
  maxBytes?: number;
  /**
   * Called once the dms began a 2xx answer (its status and headers arrived), before the body is read and parsed:
   * the dms's worker is free again (request-pump.ts sends the next request then).
   */
  onAnswer?: () => void;
}

export interface DmsResponse {
  status: number;
  headers: Record<string, string>;
  json: unknown;
  /** The body of a file request (`maxBytes`). */
  bytes?: Buffer;
}

export interface Transport {
  /** The dms base URL as configured (a path prefix kept, no trailing slash). */
  readonly url: string;
  send(request: DmsRequest): Promise<DmsResponse>;
  /** The API version in use and what the server last said about itself (after at least one answer). */
  versions(): ServerVersionFacts & { apiVersion: number };
  /** Attempts sent so far (retries count). */
  attempts(): number;
  close(): Promise<void>;
}

/** The server does not allow the API version this attempt sent (406 before authentication). */
class VersionRejected extends DmsError {
  constructor(
    readonly version: number | null,
    label: string,
  ) {
    super(`dms rejected API version ${version} for ${label}`, label, 406);
  }
}

const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
/** No dms process behind the address, or it went away mid-answer: what a restart looks like (a timeout does not). */
const NO_DMS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function errorCode(err: unknown): string {
  const withCode = err as { code?: string; cause?: { code?: string } };
  return withCode.code ?? withCode.cause?.code ?? '';
}

/** HTTP to one dms: token auth, API version, timeouts, bounded retries, keep-alive pool, bounded in-flight. */
export function createTransport(options: TransportOptions): Transport {
  const base = new URL(options.url);
  const basePath = base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, { connections: options.maxInFlight, keepAliveTimeout: 10_000 });
  const gate = createSemaphore(options.maxInFlight);
  // Starts with the best version; a 406 steps down, the server's X-Api-Version settles it.
  let apiVersion: number = CLIENT_API_VERSIONS[0];
  let facts: ServerVersionFacts = {};
  let attempts = 0;
  let closed = false;
  const noDms = (message: string) => options.onNoDms?.(message);
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  // Whatever the dms echoes of its token never reaches a trace, an event, a log line or an answer.
  const secrets = () => [options.token, ...(options.secrets?.() ?? [])];

  async function attempt(
    request: DmsRequest,
    label: string,
    version: number | null = apiVersion,
  ): Promise<DmsResponse> {
    const headers: Record<string, string> = {
      accept: version === null ? 'application/json' : `application/json; version=${version}`,
    };
    if (options.token) headers.authorization = `Token ${options.token}`;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const query = request.query?.toString();
    const signal = AbortSignal.timeout(options.timeoutMs);
    const res = await pool.request({
      method: request.method,
      path: `${basePath}${request.path}${query ? `?${query}` : ''}`,
      headers,
      body,
      signal,
    });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    if (ok) request.onAnswer?.();
    const flat: Record<string, string> = {};
    for (const name of Object.keys(res.headers)) flat[name] = header(res.headers, name);
    const announced = /^\d+$/.test(flat['content-length'] ?? '') ? Number(flat['content-length']) : null;
    if (request.maxBytes !== undefined && ok) {
      const file = await readCapped(res.body, request.maxBytes, announced, label);
      return { status: res.statusCode, headers: flat, json: null, bytes: file };
    }
    const fullUrl = `${base.origin}${basePath}${request.path}${query ? `?${query}` : ''}`;
    const bytes = await readBodyBytes(res.body, maxAnswerBytes, announced).catch((err: unknown) => {
      if (!(err instanceof BodyTooLargeError)) throw err;
      throw new DmsError(
        `dms answer to ${label} (${fullUrl}) is ${err.announced ? megabytes(err.seen) : `over ${megabytes(err.limit)}`}, larger than the limit of ${megabytes(err.limit)}: cut off; raise SVC_DMS_MAX_ANSWER_MB to accept it`,
        label,
        res.statusCode,
      );
    });
    const contentType = flat['content-type'] ?? '';
    const told = versionFacts(flat);
    if (told.version || told.maxApiVersion) {
      facts = { ...facts, ...told };
      if (version !== null) apiVersion = pickApiVersion(told.maxApiVersion, apiVersion);
    }
    if (ok && bytes.length > OFF_THREAD_BYTES && contentType.includes('json')) {
      const json = await parseJsonOffThread(ownBuffer(bytes));
      return { status: res.statusCode, headers: flat, json };
    }
    // An error's message is its first lines; a huge error page is not decoded (or parsed) whole.
    const text =
      ok || bytes.length <= ERROR_TEXT_BYTES
        ? bodyText(bytes)
        : decodeBody(Buffer.concat(bytes.chunks, ERROR_TEXT_BYTES));
    if (isVersionRejection(res.statusCode, text)) throw new VersionRejected(version, label);
    if (ok) {
      if (!contentType.includes('json')) {
        if (res.statusCode === 204) return { status: 204, headers: flat, json: null };
        throw new DmsError(
          `dms answered ${res.statusCode} to ${label} with ${contentType || 'no content type'}, not JSON: ${dmsMessage(text, secrets())}`,
          label,
          res.statusCode,
        );
      }
      const json: unknown = text === '' ? null : JSON.parse(text);
      return { status: res.statusCode, headers: flat, json };
    }
    if (res.statusCode >= 300 && res.statusCode < 400) {
      // Paperless redirects unknown paths to its login page; following it would hand us HTML.
      throw new DmsError(
        `dms redirected ${label} to ${redact(flat.location ?? '?', secrets())}: check that the dms URL is the Paperless base URL`,
        label,
        res.statusCode,
      );
    }
    if (res.statusCode === 404 && request.notFound) throw new DmsNotFoundError(request.notFound, label);
    const message = dmsMessage(text, secrets());
    const hint = res.statusCode === 403 ? forbiddenHint(request.method, request.path, message) : '';
    throw Object.assign(
      new DmsError(`dms answered ${res.statusCode} to ${label}: ${message}${hint}`, label, res.statusCode),
      {
        retryAfter: flat['retry-after'],
      },
    );
  }

  /** A 406 for the version we sent: step down, or, with none left, find out what the server is and say so. */
  async function afterRejection(rejected: VersionRejected): Promise<void> {
    if (rejected.version !== apiVersion) return; // another request already stepped down
    const next = CLIENT_API_VERSIONS.find((v) => v < apiVersion);
    if (next !== undefined) {
      options.logger?.info(
        `dms: ${options.url} does not accept API version ${apiVersion}; using ${next} (Paperless-ngx before 3.0)`,
      );
      apiVersion = next;
      return;
    }
    try {
      // Without a version Paperless uses its default, and an authenticated answer names the release.
      await gate.run(() => {
        attempts++;
        return attempt(
          { method: 'GET', path: '/api/documents/', query: new URLSearchParams({ page_size: '1' }), idempotent: true },
          rejected.request,
          null,
        );
      });
    } catch {
      // Whatever it answered, the headers (if any) were recorded; the message below is the one that matters.
    }
    throw new DmsError(unsupportedServerMessage(options.url, facts), rejected.request, 406);
  }

  async function send(request: DmsRequest): Promise<DmsResponse> {
    const label = `${request.method} ${basePath}${request.path}`;
    let rejections = 0;
    for (let tried = 0; ; tried++) {
      let waitMs: number;
      try {
        return await gate.run(() => {
          attempts++;
          return attempt(request, label);
        });
      } catch (err) {
        if (err instanceof DmsNotFoundError) throw err;
        if (closed)
          throw new DmsError(
            `dms ${label} cut off: the connection to this dms was closed (the service is stopping or now uses another dms)`,
            label,
            null,
          );
        if (err instanceof VersionRejected) {
          // Not a retry: the request never reached Paperless's views.
          if (++rejections > CLIENT_API_VERSIONS.length)
            throw new DmsError(unsupportedServerMessage(options.url, facts), label, 406);
          await afterRejection(err);
          tried--;
          continue;
        }
        const last = tried >= options.retries;
        if (err instanceof DmsError) {
          const status = err.dmsStatus ?? 0;
          if (status === 502) noDms(`dms ${label} answered 502`);
          const retryable = status === 429 || (request.idempotent && (status >= 500 || status === 408));
          if (!retryable || last) throw annotate(err, tried);
          const retryAfter =
            status === 429 ? parseRetryAfter((err as DmsError & { retryAfter?: string }).retryAfter) : null;
          if (retryAfter !== null && retryAfter > options.maxRetryAfterMs) {
            throw new DmsError(
              `${err.message} (asks to retry after ${Math.ceil(retryAfter / 1000)} s, longer than we wait)`,
              label,
              status,
            );
          }
          waitMs = retryAfter ?? backoffDelay(tried, options.retryBaseMs);
        } else {
          const code = errorCode(err);
          if (NO_DMS.has(code)) noDms(`dms ${label} failed (${code})`);
          const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
          const reason = timedOut ? `timed out after ${options.timeoutMs} ms` : `failed (${code || errorMessage(err)})`;
          const retryable = NEVER_SENT.has(code) || request.idempotent;
          if (!retryable || last) {
            throw new DmsError(`dms ${label} ${reason}${tried > 0 ? ` after ${tried + 1} attempts` : ''}`, label, null);
          }
          waitMs = backoffDelay(tried, options.retryBaseMs);
          options.logger?.warn(`dms ${label} ${reason}; retrying in ${waitMs} ms`);
        }
      }
      await sleep(waitMs);
    }
  }

  function annotate(err: DmsError, tried: number): DmsError {
    if (tried === 0) return err;
    return new DmsError(`${err.message} (after ${tried + 1} attempts)`, err.request, err.dmsStatus);
  }

  return {
    url: options.url.replace(/\/+$/, ''),
    send,
    versions: () => ({ apiVersion, ...facts }),
    attempts: () => attempts,
    async close() {
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([
        pool.close().then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), CLOSE_GRACE_MS))),
      ]);
      clearTimeout(timer);
      if (late) await pool.destroy();
    },
  };
}
