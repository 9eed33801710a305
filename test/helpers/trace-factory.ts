import type { Trace } from '../../server/engine/model.js';

let counter = 0;

/** A complete, valid trace with unique id and increasing time; override only what a test is about. */
export function makeTrace(fields: Partial<Trace> = {}): Trace {
  counter += 1;
  return {
    id: `t${counter}`,
    at: new Date(1_700_000_000_000 + counter * 1000).toISOString(),
    duration_ms: 1,
    source: 'manual',
    event_id: null,
    document: 1,
    rule_id: 'r',
    file: 'r.yml',
    dry_run: true,
    status: 'matched',
    conditions: [],
    extracted: {},
    changes: {},
    actions: [],
    error: null,
    ...fields,
  };
}
