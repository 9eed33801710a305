import path from 'node:path';
import fs from 'node:fs';
import { ServiceUnavailableError } from '../app-errors.js';
import type { Logger } from '../log.js';
import type { EventKind, EventRecord, EventStatus } from './event-types.js';
import { loadEvents, type JournalHeader } from './event-journal-load.js';
import { createGroupCommit, type Batch, type JournalIo } from './group-commit.js';
import { createJsonlFile } from '../jsonl-file.js';
import { errorMessage } from '../error-message.js';

export type { EventKind, EventRecord, EventStatus, JobReport } from './event-types.js';

export interface EventStoreOptions {
  /** Events kept; the oldest finished ones are dropped first. */
  retention?: number;
  /** Progress updates are written at most this often; status changes are written at once. */
  flushIntervalMs?: number;
  now?: () => Date;
  /** Where the journal is written (tests count the writes); default `events.jsonl` in the data dir. */
  io?: JournalIo;
  /** Bytes appended before the journal is compacted, at least (it is also compacted at twice its live size). */
  compactAfterBytes?: number;
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
  /**
   * Merges fields into a record; a status change is persisted at once, progress on the next flush.
   * `{ soon: true }` writes a status change with the next flush too (one that a crash may lose harmlessly).
   */
  update(
    id: number,
    patch: Partial<Omit<EventRecord, 'event_id'>>,
    options?: { soon?: boolean },
  ): EventRecord | undefined;
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

/** Whether the event is still queued or running (an unknown id is not). */
export function isActiveEvent(events: Pick<EventStore, 'get'>, eventId: number): boolean {
  const event = events.get(eventId);
  return event !== undefined && !isFinished(event.status);
}

/**
 * Persisted job and webhook event records. Ids are increasing integers that survive restarts; anything left
 * queued or running by a previous process is marked interrupted on open (webhook deliveries are queued again).
 *
 * On disk: an append-only journal (`events.jsonl`, one record per line, the last line for an id wins). The
 * changes made together go out in one append + fsync (group commit), so accepting a webhook costs a few
 * hundred bytes, not a rewrite of the whole history; the file is compacted to one line per live record at
 * open and whenever the appended lines outgrow it.
 */
export async function openEventStore(
  dataDir: string,
  logger: Logger,
  options: EventStoreOptions = {},
): Promise<EventStore> {
  const file = path.join(dataDir, 'events.jsonl');
  const legacyFile = path.join(dataDir, 'events.json');
  const retention = options.retention ?? 1000;
  const now = options.now ?? (() => new Date());
  const loaded = loadEvents(file, legacyFile, logger, now());
  const data = { next_id: loaded.nextId, events: loaded.events };
  const byId = new Map(data.events.map((e) => [e.event_id, e]));

  // What reached the file: the last line written per record (compaction reuses it), and what has not yet.
  const written = new Map<number, string>();
  const dirty = new Set<number>();
  const drops = new Set<number>();
  const lineOf = (record: EventRecord) => {
    const line = JSON.stringify(record);
    written.set(record.event_id, line);
    return line;
  };
  const takeChanges = (): Batch | null => {
    if (dirty.size === 0 && drops.size === 0) return null;
    const ids = [...dirty];
    const dropped = [...drops];
    dirty.clear();
    drops.clear();
    const lines = ids.flatMap((id) => {
      const record = byId.get(id);
      return record ? [lineOf(record)] : [];
    });
    for (const id of dropped) lines.push(JSON.stringify({ drop: id }));
    return {
      text: `${lines.join('\n')}\n`,
      undo: () => (ids.forEach((id) => dirty.add(id)), dropped.forEach((id) => drops.add(id))),
    };
  };
  const takeSnapshot = (): Batch => {
    const ids = [...dirty];
    const dropped = [...drops];
    const header: JournalHeader = { journal: 'events', version: 1, next_id: data.next_id };
    const lines = [
      JSON.stringify(header),
      ...data.events.map((e) => (dirty.has(e.event_id) ? undefined : written.get(e.event_id)) ?? lineOf(e)),
    ];
    dirty.clear();
    drops.clear();
    return {
      text: `${lines.join('\n')}\n`,
      undo: () => (ids.forEach((id) => dirty.add(id)), dropped.forEach((id) => drops.add(id))),
    };
  };

  const journal = options.io ? null : createJsonlFile(file);
  const io = options.io ?? (journal as JournalIo);
  // A job still winding down after shutdown must not write into the file a restarted service now owns (close).
  const writer = createGroupCommit(
    io,
    { changes: takeChanges, snapshot: takeSnapshot },
    {
      compactAfterBytes: options.compactAfterBytes ?? 4 << 20,
      flushIntervalMs: options.flushIntervalMs ?? 500,
      onError: (message) => logger.error(`events journal ${file} could not be written: ${message}`),
    },
  );
  const changed = (id: number) => dirty.add(id);
  // Errors are logged by the writer; only `flush` (the webhook's 202) reports them to its caller.
  const writeNow = () => void writer.commit().catch(() => undefined);
  const writeSoon = () => writer.soon();

  // Set when a scan found nothing finished to drop; cleared when a record finishes. Without it, a burst of thousands
  // of waiting deliveries made every acceptance scan all of them (a quarter of the service's time at 10,000).
  let nothingFinished = false;
  const prune = () => {
    if (data.events.length <= retention || nothingFinished) return;
    // The oldest finished records go; usually the first one or two, so a delivery does not scan the whole list.
    let excess = data.events.length - retention;
    for (let i = 0; i < data.events.length && excess > 0;) {
      const e = data.events[i];
      if (!isFinished(e.status)) {
        i++;
        continue;
      }
      data.events.splice(i, 1);
      byId.delete(e.event_id);
      written.delete(e.event_id);
      dirty.delete(e.event_id);
      // Said in the file too: a record dropped before its last change was written must not come back older.
      drops.add(e.event_id);
      excess--;
    }
    nothingFinished = excess > 0;
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
      changed(record.event_id);
      prune();
      writeNow();
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
    update(id, patch, options) {
      const record = byId.get(id);
      if (!record) return undefined;
      const statusChanged = patch.status !== undefined && patch.status !== record.status;
      if (patch.status !== undefined && statusChanged && isFinished(patch.status)) nothingFinished = false;
      Object.assign(record, patch);
      changed(id);
      const copy = { ...record };
      // Records beyond the retention go as they finish, not only when the next one is created: after a burst of
      // deliveries, thousands finish with no new record to follow.
      if (statusChanged && isFinished(record.status)) prune();
      if (statusChanged && !options?.soon) writeNow();
      else writeSoon();
      return copy;
    },
    interruptUnfinished(reason) {
      let count = 0;
      for (const e of data.events) {
        // An accepted webhook delivery is persisted before its 202: it runs after the restart instead.
        if (isFinished(e.status) || e.kind === 'webhook') continue;
        e.status = 'interrupted';
        nothingFinished = false;
        e.finished_at = now().toISOString();
        e.error = reason;
        changed(e.event_id);
        count++;
      }
      if (count) writeNow();
      return count;
    },
    unfinishedDeliveries() {
      return data.events.filter((e) => e.kind === 'webhook' && !isFinished(e.status)).map((e) => ({ ...e }));
    },
    discard(id) {
      const record = byId.get(id);
      if (!record) return;
      byId.delete(id);
      data.events.splice(data.events.indexOf(record), 1);
      written.delete(id);
      dirty.delete(id);
      drops.add(id);
      writeSoon();
    },
    async flush() {
      try {
        await writer.commit();
      } catch (err) {
        throw new ServiceUnavailableError(
          `The events journal could not be written (${errorMessage(err)}); try again later.`,
          10,
        );
      }
    },
    async close() {
      await writer.close();
      await journal?.close();
    },
  };

  const interrupted = store.interruptUnfinished(
    'The service stopped while this was queued or running; start it again.',
  );
  if (interrupted) logger.warn(`${interrupted} job(s) left unfinished by the previous run are marked interrupted`);
  prune();
  // Starts the journal on a clean line boundary (after a torn append) with one line per record.
  try {
    await writer.compact();
    if (loaded.legacyFile) fs.rmSync(loaded.legacyFile, { force: true });
  } catch {
    // Logged by the writer; the next write tries the compaction again.
  }
  return store;
}
