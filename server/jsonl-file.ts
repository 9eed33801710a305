import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';

/** Where a journal's bytes go: appended lines (write + fsync), or the whole file replaced atomically. */
export interface JournalIo {
  append(text: string): Promise<void>;
  replace(text: string): Promise<void>;
}

export interface JsonlFile extends JournalIo {
  close(): Promise<void>;
}

// Where the platform has O_DSYNC (Linux, macOS), each append is one durable write instead of a write and an
// fdatasync: one wait for the event loop's turn fewer per group commit on a busy machine.
const DSYNC = fs.constants.O_DSYNC as number | undefined;
const APPEND_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | (DSYNC ?? 0);

/**
 * The journal on disk: `append` writes to the end and fsyncs (fdatasync: the data and the new length);
 * `replace` writes a whole new file atomically, then fsyncs the folder so the rename survives a power cut
 * before anything is appended to the new file.
 */
export function createJsonlFile(file: string, mode = 0o600): JsonlFile {
  let handle: fsp.FileHandle | null = null;
  const closeHandle = async () => {
    const old = handle;
    handle = null;
    await old?.close();
  };
  return {
    async append(text) {
      handle ??= await fsp.open(file, APPEND_FLAGS, mode);
      const bytes = Buffer.from(text);
      // One write call (one trip through the thread pool), not appendFile's chunked loop.
      for (let at = 0; at < bytes.length;) at += (await handle.write(bytes, at)).bytesWritten;
      // With O_DSYNC the write returned only once the data and the new length were on disk, like fdatasync.
      if (!DSYNC) await handle.datasync();
    },
    async replace(text) {
      await writeFileAtomic(file, text, { mode });
      await syncFolder(path.dirname(file));
      // The handle still points at the file the rename replaced.
      await closeHandle();
    },
    close: closeHandle,
  };
}

async function syncFolder(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open or fsync a folder; its rename is durable once it returns.
  } finally {
    await handle?.close();
  }
}

export interface JsonLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/**
 * Splits a JSON-lines file into the values `accept` takes and the lines it could not use: a line that does
 * not parse, has the wrong shape, or is the unterminated end of an interrupted append (`torn`).
 */
export function readJsonLines<T>(
  text: string,
  accept: (value: unknown) => value is T,
): { values: T[]; bad: JsonLine[]; torn: boolean } {
  const values: T[] = [];
  const bad: JsonLine[] = [];
  const lines = text.split('\n');
  // A file that ends with a newline splits into a last empty string; anything else there was cut short.
  const tail = lines.pop() ?? '';
  const torn = tail.trim() !== '';
  if (torn) lines.push(tail);
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      bad.push({ line: i + 1, text: raw });
      return;
    }
    if (accept(value)) values.push(value);
    else bad.push({ line: i + 1, text: raw });
  });
  return { values, bad, torn };
}
