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
 * cannot take (a full disk) stays in memory. Each start makes a new file in place of the old one, never truncates
 * it, and a closed journal keeps reading its own: a job still winding down after the service closed reads its runs,
 * never those of the service that reopened the journal in the same process.
 */
export interface RestFile {
  readonly put: (text: string) => Rest;
  readonly get: (rest: Rest) => string;
  /** Starts the file afresh with the texts of `kept`, in order; answers where each now lies. */
  restart(kept: readonly Rest[]): Rest[];
  close(): void;
}

/** Closes the descriptor a closed rest file kept for late reads once its journal is gone. */
const release = new FinalizationRegistry<number>((fd) => fs.close(fd, () => undefined));

export function openRestFile(file: string, logger: Logger): RestFile {
  let fd: number | null = null;
  let size = 0;
  let warned = false;
  let closed = false;

  // A new file each time, never the old one truncated: whoever still reads the old one keeps it.
  const fresh = () => {
    try {
      fs.rmSync(file, { force: true });
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
  const read = (rest: Rest): string => {
    if (typeof rest === 'string') return rest;
    const buffer = Buffer.alloc(rest.bytes);
    // A spilled text was written through `fd`, which stays open as long as such a text can be asked for.
    fs.readSync(fd as number, buffer, 0, rest.bytes, rest.at);
    return buffer.toString('utf8');
  };
  const put = (text: string): Rest => {
    if (fd === null || closed) return text;
    const buffer = Buffer.from(text, 'utf8');
    try {
      // A disk that fills up takes part of a text before it refuses: the next text is written over that part.
      if (fs.writeSync(fd, buffer, 0, buffer.length, size) < buffer.length) throw new Error('the disk is full');
    } catch (err) {
      warn(err);
      return text;
    }
    const spilled = { at: size, bytes: buffer.length };
    size += buffer.length;
    return spilled;
  };
  fresh();

  const rests: RestFile = {
    put,
    get: read,
    restart(kept) {
      const texts = kept.map(read);
      if (closed) return texts;
      if (fd !== null) fs.closeSync(fd);
      fresh();
      return texts.map(put);
    },
    close() {
      // Closed, the file still answers late lookups through its descriptor (a reopen replaced the name), and takes
      // nothing more; the descriptor goes with the journal.
      if (closed) return;
      closed = true;
      if (fd !== null) release.register(rests, fd);
    },
  };
  return rests;
}
