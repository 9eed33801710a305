import type { Trace, TraceStatus } from '../engine/model.js';
import { BadRequestError } from '../errors.js';

export const TRACE_LIMIT_DEFAULT = 100;
export const TRACE_LIMIT_MAX = 1000;
export const TRACE_STATUSES: readonly TraceStatus[] = ['matched', 'not_matched', 'error', 'skipped', 'timeout'];

/** Filters of `GET /api/traces` (DESIGN §4); every filter given must match. */
export interface TraceQuery {
  limit: number;
  document?: number;
  rule_id?: string;
  event_id?: number;
  status?: TraceStatus;
}

function single(raw: unknown, name: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new BadRequestError(`Give "${name}" once, as a plain value.`);
  return raw;
}

function positiveInteger(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) {
    throw new BadRequestError(`"${name}" must be a positive whole number, got "${raw}".`);
  }
  return Number(raw);
}

/** Turns query-string values into a TraceQuery; anything malformed is a 400 naming the parameter. */
export function parseTraceQuery(query: Record<string, unknown>): TraceQuery {
  const limit = positiveInteger(single(query.limit, 'limit'), 'limit') ?? TRACE_LIMIT_DEFAULT;
  const result: TraceQuery = { limit: Math.min(limit, TRACE_LIMIT_MAX) };

  const document = positiveInteger(single(query.document, 'document'), 'document');
  if (document !== undefined) result.document = document;
  const eventId = positiveInteger(single(query.event_id, 'event_id'), 'event_id');
  if (eventId !== undefined) result.event_id = eventId;

  const ruleId = single(query.rule_id, 'rule_id');
  if (ruleId !== undefined) {
    if (ruleId === '') throw new BadRequestError('"rule_id" must not be empty.');
    result.rule_id = ruleId;
  }
  const status = single(query.status, 'status');
  if (status !== undefined) {
    if (!(TRACE_STATUSES as readonly string[]).includes(status)) {
      throw new BadRequestError(`"status" must be one of ${TRACE_STATUSES.join(', ')}; got "${status}".`);
    }
    result.status = status as TraceStatus;
  }
  return result;
}

export function traceMatches(trace: Trace, query: TraceQuery): boolean {
  return (
    (query.document === undefined || trace.document === query.document) &&
    (query.rule_id === undefined || trace.rule_id === query.rule_id) &&
    (query.event_id === undefined || trace.event_id === query.event_id) &&
    (query.status === undefined || trace.status === query.status)
  );
}
