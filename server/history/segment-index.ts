import type { Trace, TraceStatus } from '../engine/model.js';
import type { TraceQuery } from './trace-query.js';

/**
 * What a segment held only as its file keeps in memory, so that a query or a lookup skips the file without reading
 * it: each trace's document and event id, in file order (16 bytes a trace), and the segment's rule ids and statuses.
 * Positions let a lookup ignore the traces of the oldest file that lie outside the retention, as a query does.
 */
export interface SegmentIndex {
  count: number;
  documents: Float64Array;
  /** NaN where the trace has no event. */
  events: Float64Array;
  rules: ReadonlySet<string>;
  statuses: ReadonlySet<TraceStatus>;
}

export function indexSegment(traces: readonly Trace[]): SegmentIndex {
  const documents = new Float64Array(traces.length);
  const events = new Float64Array(traces.length);
  const rules = new Set<string>();
  const statuses = new Set<TraceStatus>();
  traces.forEach((trace, i) => {
    documents[i] = trace.document;
    events[i] = trace.event_id ?? Number.NaN;
    rules.add(trace.rule_id);
    statuses.add(trace.status);
  });
  return { count: traces.length, documents, events, rules, statuses };
}

/**
 * The positions at or after `from` that may match the query, newest first; `all` when only reading the traces can
 * tell (no document or event filter), null when none can (the file is not read). Exact for the document and event
 * filters, per segment for rules and statuses.
 */
export function candidates(index: SegmentIndex, query: TraceQuery, from: number): number[] | 'all' | null {
  if (query.status !== undefined && !index.statuses.has(query.status)) return null;
  if (query.rule_id !== undefined && !index.rules.has(query.rule_id)) return null;
  const prefix = query.rule_prefix;
  if (prefix !== undefined && ![...index.rules].some((rule) => rule.startsWith(prefix))) return null;
  if (from >= index.count) return null;
  const { document, event_id: event, documents } = query;
  if (document === undefined && event === undefined && documents === undefined) return 'all';
  const positions: number[] = [];
  for (let i = index.count - 1; i >= from; i--) {
    if (document !== undefined && index.documents[i] !== document) continue;
    if (event !== undefined && index.events[i] !== event) continue;
    if (documents !== undefined && !documents.includes(index.documents[i])) continue;
    positions.push(i);
  }
  return positions.length > 0 ? positions : null;
}

/** Whether a trace at position `from` or later records this event for this document. */
export function holdsEvent(index: SegmentIndex, event: number, document: number, from: number): boolean {
  for (let i = from; i < index.count; i++)
    if (index.events[i] === event && index.documents[i] === document) return true;
  return false;
}
