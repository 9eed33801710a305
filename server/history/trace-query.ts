import type { Trace, TraceStatus } from '../engine/model.js';
import { BadRequestError } from '../app-errors.js';
import { oneOfParam, positiveIntegerParam, singleParam } from '../query-params.js';

export const TRACE_LIMIT_DEFAULT = 100;
export const TRACE_LIMIT_MAX = 1000;
export const TRACE_STATUSES: readonly TraceStatus[] = ['matched', 'not_matched', 'error', 'skipped', 'timeout'];

/** Filters of `GET /api/traces` (docs/decisions.md#stored-data); every filter given must match. */
export interface TraceQuery {
  limit: number;
  document?: number;
  rule_id?: string;
  event_id?: number;
  status?: TraceStatus;
  /** Rule ids starting with this (the traces page's rule filter). */
  rule_prefix?: string;
  /** Any of these documents (the traces page resolves a title to the documents it names). */
  documents?: number[];
}

/** Turns query-string values into a TraceQuery; anything malformed is a 400 naming the parameter. */
export function parseTraceQuery(query: Record<string, unknown>): TraceQuery {
  const limit = positiveIntegerParam(query.limit, 'limit') ?? TRACE_LIMIT_DEFAULT;
  const result: TraceQuery = { limit: Math.min(limit, TRACE_LIMIT_MAX) };

  const document = positiveIntegerParam(query.document, 'document');
  if (document !== undefined) result.document = document;
  const eventId = positiveIntegerParam(query.event_id, 'event_id');
  if (eventId !== undefined) result.event_id = eventId;

  const ruleId = singleParam(query.rule_id, 'rule_id');
  if (ruleId !== undefined) {
    if (ruleId === '') throw new BadRequestError('"rule_id" must not be empty.');
    result.rule_id = ruleId;
  }
  const prefix = singleParam(query.rule_prefix, 'rule_prefix');
  if (prefix) result.rule_prefix = prefix;
  const documents = singleParam(query.documents, 'documents');
  if (documents !== undefined) {
    const ids = documents
      .split(',')
      .map((id) => positiveIntegerParam(id.trim(), 'documents', 'a comma-separated list of document ids') as number);
    if (ids.length > 100) throw new BadRequestError('"documents" may list at most 100 document ids.');
    result.documents = ids;
  }
  const status = oneOfParam(query.status, TRACE_STATUSES, 'status');
  if (status !== undefined) result.status = status;
  return result;
}

export function traceMatches(trace: Trace, query: TraceQuery): boolean {
  return (
    (query.document === undefined || trace.document === query.document) &&
    (query.rule_id === undefined || trace.rule_id === query.rule_id) &&
    (query.rule_prefix === undefined || trace.rule_id.startsWith(query.rule_prefix)) &&
    (query.documents === undefined || query.documents.includes(trace.document)) &&
    (query.event_id === undefined || trace.event_id === query.event_id) &&
    (query.status === undefined || trace.status === query.status)
  );
}
