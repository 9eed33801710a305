import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Logger } from '../log.js';
import type { EventKind, EventRecord, EventStatus } from './event-types.js';
import { createCoalescedWriter } from './coalesced-writer.js';
import { moveAside } from './move-aside.js';

export type { EventKind, EventRecord, EventStatus, JobReport } from './event-types.js';

interface EventFile {
  next_id: number;
  events: EventRecord[];
}

export interface EventStoreOptions {
  /** Events kept; the oldest finished ones are dropped first. */
  retention?: number;
  /** Progress updates are written at most this often; status changes are written at once. */
  flushIntervalMs?: number;
  now?: () => Date;
}

export interface NewEvent {
  kind: EventKind;
  rule_id: string | null;
  dry_run: boolean;
  document?: number | null;
  reverts?: number | null;
  trigger?: EventRecord['trigger'];
  resumes?: number | null;
  applied_from?: number | null;
}

export interface EventStore {
  create(input: NewEvent): EventRecord;
  get(id: number): EventRecord | undefined;
  /** Newest first. */
  list(options?: { limit?: number; kind?: EventKind; status?: EventStatus }): EventRecord[];
  /** Merges fields into a record; a status change is persisted at once, progress on the next flush. */
  update(id: number, patch: Partial<Omit<EventRecord, 'event_id'>>): EventRecord | undefined;
  /** Marks every queued or running record interrupted (used at start-up and at shutdown); webhook deliveries are kept. */
  interruptUnfinished(reason: string): number;
  /** Webhook deliveries accepted but not finished (the durable webhook queue), oldest first. */
  unfinishedDeliveries(): EventRecord[];
  /** Forgets a record (a delivery that turned out to be the service's own echo). */
  discard(id: number): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

const FINISHED: ReadonlySet<EventStatus> = new Set(['done', 'failed', 'cancelled', 'interrupted']);

export function isFinished(status: EventStatus): boolean {
  return FINISHED.has(status);
}

/**
 * Persisted job and webhook event records (lowdb, atomic writes). Ids are increasing integers that
 * survive restarts; anything left queued or running by a previous process is marked interrupted on open.
 */
export async function openEventStore(dataDir: string, logger: Logger, options: EventStoreOptions = {}): Promise<EventStore> {
  const file = path.join(dataDir, 'events.json');
  const retention = options.retention ?? 1000;
  const flushIntervalMs = options.flushIntervalMs ?? 500;
  const now = options.now ?? (() => new Date());
  const db = new Low<EventFile>(new JSONFile<EventFile>(file), { next_id: 1, events: [] });
  try {
    await db.read();
    if (!isEventFile(db.data)) throw new Error('unexpected structure');
  } catch (err) {
    moveAside(file, 'events file', (err as Error).message, logger, now());
    db.data = { next_id: 1, events: [] };
  }
  const data = db.data;
  data.next_id = Math.max(data.next_id, ...data.events.map((e) => e.event_id + 1), 1);
  const byId = new Map(data.events.map((e) => [e.event_id, e]));

  // A job still winding down after shutdown must not overwrite the file a restarted service now owns (close).
  const writer = createCoalescedWriter(
    () => db.write(),
    (message) => logger.error(`events file ${file} could not be written: ${message}`),
    flushIntervalMs,
  );
  const writeNow = () => writer.now();
  const writeSoon = () => writer.soon();

  const prune = () => {
    if (data.events.length <= retention) return;
    const excess = data.events.length - retention;
    let dropped = 0;
    data.events = data.events.filter((e) => {
      if (dropped < excess && isFinished(e.status)) {
        dropped++;
        byId.delete(e.event_id);
        return false;
      }
      return true;
    });
  };

  const store: EventStore = {
    create(input) {
      const record: EventRecord = {
        event_id: data.next_id++,
        kind: input.kind,
        rule_id: input.rule_id,
        dry_run: input.dry_run,
        document: input.document ?? null,
        reverts: input.reverts ?? null,
        ...(input.applied_from != null ? { applied_from: input.applied_from } : {}),
        status: 'queued',
        total: null,
        processed: 0,
        matched: 0,
        changed: 0,
        errors: 0,
        created_at: now().toISOString(),
        started_at: null,
        finished_at: null,
        error: null,
        report: null,
        ...(input.trigger ? { trigger: input.trigger } : {}),
        ...(input.resumes ? { resumes: input.resumes } : {}),
      };
      data.events.push(record);
      byId.set(record.event_id, record);
      prune();
      void writeNow();
      return { ...record };
    },
    get(id) {
      const record = byId.get(id);
      return record && { ...record };
    },
    list({ limit = 100, kind, status } = {}) {
      const out: EventRecord[] = [];
      for (let i = data.events.length - 1; i >= 0 && out.length < limit; i--) {
        const e = data.events[i];
        if ((kind && e.kind !== kind) || (status && e.status !== status)) continue;
        out.push({ ...e });
      }
      return out;
    },
    update(id, patch) {
      const record = byId.get(id);
      if (!record) return undefined;
      const statusChanged = patch.status !== undefined && patch.status !== record.status;
      Object.assign(record, patch);
      if (statusChanged) void writeNow();
      else writeSoon();
      return { ...record };
    },
    interruptUnfinished(reason) {
      let count = 0;
      for (const e of data.events) {
        // An accepted webhook delivery is persisted before its 202: it runs after the restart instead.
        if (isFinished(e.status) || e.kind === 'webhook') continue;
        e.status = 'interrupted';
        e.finished_at = now().toISOString();
        e.error = reason;
        count++;
      }
      if (count) void writeNow();
      return count;
    },
    unfinishedDeliveries() {
      return data.events.filter((e) => e.kind === 'webhook' && !isFinished(e.status)).map((e) => ({ ...e }));
    },
    discard(id) {
      if (!byId.delete(id)) return;
      data.events = data.events.filter((e) => e.event_id !== id);
      writeSoon();
    },
    flush: () => writeNow(),
    close: () => writer.close(),
  };

  const interrupted = store.interruptUnfinished('The service stopped while this was queued or running; start it again.');
  if (interrupted) logger.warn(`${interrupted} job(s) left unfinished by the previous run are marked interrupted`);
  await store.flush();
  return store;
}

function isEventFile(value: unknown): value is EventFile {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<EventFile>;
  return typeof v.next_id === 'number' && Array.isArray(v.events);
}
