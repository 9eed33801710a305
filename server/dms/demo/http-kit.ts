import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimProfile } from './profiles.js';
import type { SimUser } from './sim-users.js';
import type { SimStore } from './store.js';

/** What a simulator route answers: JSON unless `text` is set (Paperless answers some errors as plain text). */
export interface SimResult {
  status: number;
  body?: unknown;
  text?: string;
  /** A file (a document download), sent as it is with the content type in `headers`. */
  bytes?: Buffer;
  headers?: Record<string, string>;
}

/** Thrown inside a route to answer at once. */
export class SimHttpError extends Error {
  constructor(readonly result: SimResult) {
    super(`simulator answer ${result.status}`);
  }
}

export interface SimHooks {
  /** A PATCH/PUT (even a no-op) or a bulk edit's task touched the document: Paperless fires "Document Updated". */
  documentUpdated(id: number): void;
  /**
   * Queues a Celery task (`.delay()`): it runs a moment after the request that queued it, in another process.
   * Absent: at `setImmediate`, i.e. right after the answer was written.
   */
  queueTask?(name: string, run: () => void): void;
  documentAdded(id: number): void;
  /** Between a PATCH/PUT's save and the read that builds its answer (tests make a concurrent change here). */
  afterSave?(id: number): void;
}

export interface SimContext {
  store: SimStore;
  method: string;
  url: URL;
  params: URLSearchParams;
  match: RegExpExecArray;
  /** Absolute base used for `next`/`previous` links, built from the Host header like DRF does. */
  origin: string;
  /** The API version the request asked for (allowed by the profile). */
  apiVersion: number;
  /** The authenticated caller: what it may do and see. */
  user: SimUser;
  profile: SimProfile;
  hooks: SimHooks;
  /** The JSON body; 400 on bad JSON and, with `jsonOnly`, 415 on other content types. */
  json(options?: { jsonOnly?: boolean }): Promise<unknown>;
}

export type SimHandler = (ctx: SimContext) => SimResult | Promise<SimResult>;

export const json = (status: number, body: unknown, headers?: Record<string, string>): SimResult => ({
  status,
  body,
  headers,
});
export const fail = (status: number, body: unknown): never => {
  throw new SimHttpError({ status, body });
};
export const notFound = (model: string): never => fail(404, { detail: `No ${model} matches the given query.` });

const MAX_BODY = 5 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new SimHttpError({ status: 413, body: { detail: 'Request body too large.' } });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJsonBody(raw: string, contentType: string, jsonOnly: boolean): unknown {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    if (jsonOnly || raw !== '') fail(415, { detail: `Unsupported media type "${contentType}" in request.` });
    return {};
  }
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch (err) {
    return fail(400, { detail: `JSON parse error - ${(err as Error).message}` });
  }
}

/**
 * The result with its JSON body already serialized, so that writing it is only the socket write: the slow
 * profile counts building the answer inside the time it paces (slow-dms.ts).
 */
export function serialized(result: SimResult): SimResult {
  if (result.body === undefined || result.text !== undefined || result.bytes !== undefined) return result;
  const { body, ...rest } = result;
  return { ...rest, text: JSON.stringify(body), headers: { ...result.headers, 'content-type': 'application/json' } };
}

export function writeResult(res: ServerResponse, result: SimResult, extraHeaders: Record<string, string>): void {
  const headers: Record<string, string> = { ...extraHeaders, ...result.headers };
  let payload: string | Buffer = '';
  if (result.bytes !== undefined) {
    headers['content-type'] ??= 'application/octet-stream';
    payload = result.bytes;
  } else if (result.text !== undefined) {
    headers['content-type'] ??= 'text/html; charset=utf-8';
    payload = result.text;
  } else if (result.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(result.body);
  }
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(result.status, headers);
  res.end(payload);
}
