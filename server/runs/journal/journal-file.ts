import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../error-message.js';
import { createJsonlFile, readJsonLines } from '../../jsonl-file.js';
import type { Logger } from '../../log.js';

/**
 * An append-only file of JSON lines with group commit: lines appended while a sync is running go out together
 * in the next one, so a flood of writes costs one fdatasync per batch, not one per line. `append(…, true)`
 * resolves once the line is on disk; other lines ride the next sync (or a short timer).
 */
export interface JournalFile {
  append(record: object, durable: boolean): Promise<void>;
  /** Every line read at open, in order; a torn last line (a kill mid-write) is left out. */
  readonly loaded: unknown[];
  /**
   * Replaces the file (atomically) with the records `records()` gives once every line in flight is written, and
   * goes on appending to the new file.
   */
  rewrite(records: () => readonly object[]): Promise<void>;
  readonly bytes: number;
  /** Durable appends (one write + fdatasync each) made since open (for the docs' figure and the bench). */
  readonly syncs: number;
  close(): Promise<void>;
}

const LAZY_FLUSH_MS = 200;

export function openJournalFile(file: string, logger: Logger): JournalFile {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const loaded = load(file, logger);
  const io = createJsonlFile(file);
  let bytes = fileSize(file);
  let syncs = 0;
  let buffer: string[] = [];
  let waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const writeOut = async () => {
    while (buffer.length > 0) {
      const text = buffer.join('');
      const woken = waiters;
      buffer = [];
      waiters = [];
      try {
        await io.append(text);
        bytes += Buffer.byteLength(text);
        syncs++;
        for (const w of woken) w.resolve();
      } catch (err) {
        const failure = new Error(`the write journal ${file} could not be written: ${errorMessage(err)}`);
        logger.error(failure.message);
        for (const w of woken) w.reject(failure);
      }
    }
  };
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    flushing ??= writeOut().finally(() => (flushing = null));
    return flushing.then(() => (buffer.length > 0 ? flush() : undefined));
  };

  return {
    loaded,
    append(record, durable) {
      if (closed) return Promise.reject(new Error('the write journal is closed'));
      buffer.push(JSON.stringify(record) + '\n');
      if (!durable) {
        timer ??= setTimeout(() => void flush(), LAZY_FLUSH_MS);
        return Promise.resolve();
      }
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      void flush();
      return done;
    },
    async rewrite(records) {
      await flush();
      while (flushing) await flushing;
      // The snapshot holds every record so far, the buffered lines' too: they are not appended again, and whoever
      // waits for them is answered once the new file is on disk. Appends meanwhile wait for the replace.
      const text = records()
        .map((r) => JSON.stringify(r) + '\n')
        .join('');
      const covered = waiters;
      buffer = [];
      waiters = [];
      const replacing = io.replace(text).then(
        () => {
          bytes = Buffer.byteLength(text);
          for (const w of covered) w.resolve();
        },
        (err: unknown) => {
          for (const w of covered) w.reject(err instanceof Error ? err : new Error(String(err)));
          throw err;
        },
      );
      // Appends wait for it; its failure is the caller's (below), not theirs.
      flushing = replacing
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => (flushing = null));
      await replacing;
    },
    get bytes() {
      return bytes;
    },
    get syncs() {
      return syncs;
    },
    async close() {
      if (closed) return;
      await flush();
      closed = true;
      await io.close();
    },
  };
}

/**
 * The records on disk. A kill mid-append leaves a last line without its newline: it is cut off, so the next
 * append starts a line of its own; a bad line elsewhere is logged and skipped.
 */
function load(file: string, logger: Logger): unknown[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const { values, bad, torn } = readJsonLines(text, (v): v is object => typeof v === 'object' && v !== null);
  if (torn) fs.truncateSync(file, Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)));
  const lastLine = text.split('\n').length;
  for (const line of bad)
    if (!(torn && line.line === lastLine))
      logger.warn(`write journal ${file}: line ${line.line} could not be read and is skipped`);
  return values;
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
