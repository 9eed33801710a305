import fs from 'node:fs';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../error-message.js';

/** Where a finished run's packed text lies in the rest file. */
export interface Spilled {
  readonly at: number;
  readonly bytes: number;
}

/** A packed run's text: in memory, or in the rest file. */
export type Rest = string | Spilled;

/**
 * The packed texts of the journal's finished runs, out of the heap: appended to a scratch file beside the journal
 * and read back by position when a caller asks for the run (the page cache answers; a burst of 10,000 runs held
 * about 12 MiB of these texts). The file is a cache, never a record: it is started empty at every open (the
 * journal's lines put their runs in again) and at every compaction (which puts in what it keeps). A text the file
 * cannot take (a full disk) stays in memory.
 */
export interface RestFile {
  put(text: string): Rest;
  get(rest: Rest): string;
  /** Starts the file afresh with the texts of `kept`, in order; answers where each now lies. */
  restart(kept: readonly Rest[]): Rest[];
  close(): void;
}

export function openRestFile(file: string, logger: Logger): RestFile {
  let fd: number | null = null;
  let size = 0;
  let warned = false;
  let closed = false;

  const fresh = () => {
    try {
      fd = fs.openSync(file, 'w+', 0o600);
    } catch (err) {
      fd = null;
      warn(err);
    }
    size = 0;
  };
  const warn = (err: unknown) => {
    if (!warned) logger.warn(`the write journal keeps finished runs in memory: ${file}: ${errorMessage(err)}`);
    warned = true;
  };
  const read = (rest: Rest, from: number | null): string => {
    if (typeof rest === 'string') return rest;
    const own = from ?? fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(rest.bytes);
      fs.readSync(own, buffer, 0, rest.bytes, rest.at);
      return buffer.toString('utf8');
    } finally {
      if (from === null) fs.closeSync(own);
    }
  };
  const put = (text: string): Rest => {
    if (fd === null) return text;
    const buffer = Buffer.from(text, 'utf8');
    try {
      fs.writeSync(fd, buffer, 0, buffer.length, size);
    } catch (err) {
      warn(err);
      return text;
    }
    const spilled = { at: size, bytes: buffer.length };
    size += buffer.length;
    return spilled;
  };
  fresh();

  return {
    put,
    get: (rest) => read(rest, fd),
    restart(kept) {
      const texts = kept.map((rest) => read(rest, fd));
      if (closed) return texts;
      if (fd !== null) fs.closeSync(fd);
      fresh();
      return texts.map(put);
    },
    close() {
      // Closed, the file still answers (a late lookup opens it for the read): it is only started again at open.
      closed = true;
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}
