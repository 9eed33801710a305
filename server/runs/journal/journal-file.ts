import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../error-message.js';
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
  /** fdatasync calls made since open (for the docs' figure and the bench). */
  readonly syncs: number;
  close(): Promise<void>;
}

const LAZY_FLUSH_MS = 200;

export function openJournalFile(file: string, logger: Logger): JournalFile {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const loaded = readLines(file, logger);
  dropTornTail(file);
  let fd = fs.openSync(file, 'a', 0o600);
  let bytes = fs.fstatSync(fd).size;
  let syncs = 0;
  let buffer: string[] = [];
  let waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const writeOut = async () => {
    while (buffer.length > 0) {
      const lines = buffer;
      const woken = waiters;
      buffer = [];
      waiters = [];
      const text = lines.join('');
      try {
        await new Promise<void>((resolve, reject) =>
          fs.write(fd, text, null, 'utf8', (err) => (err ? reject(err) : resolve())),
        );
        bytes += Buffer.byteLength(text);
        if (woken.length > 0) {
          await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
          syncs++;
        }
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
      const temp = `${file}.${process.pid}.tmp`;
      const text = records()
        .map((r) => JSON.stringify(r) + '\n')
        .join('');
      fs.writeFileSync(temp, text, { mode: 0o600 });
      const tfd = fs.openSync(temp, 'r');
      fs.fsyncSync(tfd);
      fs.closeSync(tfd);
      fs.renameSync(temp, file);
      fs.closeSync(fd);
      fd = fs.openSync(file, 'a', 0o600);
      bytes = Buffer.byteLength(text);
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
      fs.closeSync(fd);
    },
  };
}

/** A kill mid-append leaves a line without its newline: cut it off, so the next append starts a line of its own. */
function dropTornTail(file: string): void {
  let text: Buffer;
  try {
    text = fs.readFileSync(file);
  } catch {
    return;
  }
  if (text.length === 0 || text[text.length - 1] === 0x0a) return;
  fs.truncateSync(file, text.lastIndexOf(0x0a) + 1);
}

function readLines(file: string, logger: Logger): unknown[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: unknown[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(JSON.parse(line));
    } catch {
      // Only the last line can be torn by a kill; a bad line elsewhere is logged and skipped.
      if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim() !== ''))
        logger.warn(`write journal ${file}: line ${i + 1} could not be read and is skipped`);
    }
  });
  return out;
}
