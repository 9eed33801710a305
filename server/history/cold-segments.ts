import fsp from 'node:fs/promises';
import type { Trace } from '../engine/model.js';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../log.js';
import { parseSegment } from './segment-read.js';

/** Cold segments read by queries that stay held: the traces page asks again and again, mostly for the same files. */
export const COLD_CACHE_SEGMENTS = 2;

/** Reads the traces of segments held as their file alone, keeping the most recently read few. */
export interface ColdReader {
  /** The file's traces, oldest first; none when it is gone (retention deleted it meanwhile) or unreadable. */
  read(file: string): Promise<readonly Trace[]>;
  /** Retention deleted the file: its traces are no longer kept. */
  forget(file: string): void;
  /** Traces held by the cache. */
  cached(): number;
}

export function createColdReader(logger: Logger, live: (file: string) => boolean): ColdReader {
  // A Map keeps insertion order: the least recently read file is the first key.
  const cache = new Map<string, readonly Trace[]>();

  const load = async (file: string): Promise<readonly Trace[] | null> => {
    let text: string;
    try {
      text = await fsp.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        logger.warn(`could not read trace history file ${file}: ${errorMessage(err)}`);
      return null;
    }
    const parsed = parseSegment(text);
    if (parsed.intact) return parsed.data.traces;
    // Damaged since the start salvaged it (it is never rewritten): show what still parses; the next start sets the
    // rest aside.
    logger.warn(`trace history file ${file} is damaged: ${parsed.traces.length} traces readable`);
    return parsed.traces;
  };

  return {
    async read(file) {
      const hit = cache.get(file);
      if (hit) {
        cache.delete(file);
        cache.set(file, hit);
        return hit;
      }
      const traces = await load(file);
      if (!traces) return [];
      if (live(file)) {
        cache.set(file, traces);
        for (const oldest of cache.keys()) if (cache.size > COLD_CACHE_SEGMENTS) cache.delete(oldest);
      }
      return traces;
    },
    forget(file) {
      cache.delete(file);
    },
    cached() {
      let n = 0;
      for (const traces of cache.values()) n += traces.length;
      return n;
    },
  };
}
