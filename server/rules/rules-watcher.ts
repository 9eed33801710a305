import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { errorMessage } from '../error-message.js';

/** Quiet time after the last change before reloading: editors write a file in several steps. */
export const WATCH_DEBOUNCE_MS = 200;

/** The timers the quiet time runs on; tests pass a manual clock. */
export interface WatchTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: WatchTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface RulesWatcher {
  /** Re-reads the folder list (package folders come and go) and watches each. */
  sync(): void;
  close(): void;
}

/**
 * Watches the rules dir and its package folders (one level, like the store) and calls `onChange`
 * once per burst of changes. Non-recursive `fs.watch` per folder, because recursive watching is not
 * reliable on every platform Node supports; dot files (our own temp files) are ignored.
 */
export function watchRulesDir(
  root: string,
  onChange: () => void,
  logger: Logger,
  debounceMs = WATCH_DEBOUNCE_MS,
  timers: WatchTimers = REAL_TIMERS,
): RulesWatcher {
  const watchers = new Map<string, fs.FSWatcher>();
  let timer: unknown;
  let closed = false;

  const changed = (filename: string | Buffer | null) => {
    const name = filename === null ? '' : String(filename);
    if (name.startsWith('.') || closed) return;
    timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      if (closed) return;
      sync();
      onChange();
    }, debounceMs);
  };

  const watch = (dir: string) => {
    if (watchers.has(dir)) return;
    try {
      const watcher = fs.watch(dir, { persistent: false }, (_event, filename) => changed(filename));
      watcher.on('error', () => {
        // The folder went away; the next sync drops it.
        watcher.close();
        watchers.delete(dir);
        changed(null);
      });
      watchers.set(dir, watcher);
    } catch (err) {
      logger.warn(
        `rules: cannot watch ${dir} (${errorMessage(err)}); files changed there outside the Web UI are read at the next restart (rules saved in the Web UI apply at once)`,
      );
    }
  };

  function sync(): void {
    if (closed) return;
    const wanted = new Set([root]);
    try {
      for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
        if (!entry.name.startsWith('.') && (entry.isDirectory() || entry.isSymbolicLink())) {
          const dir = path.join(root, entry.name);
          if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) wanted.add(dir);
        }
      }
    } catch {
      // An unreadable rules dir shows up as a reload error; nothing to watch meanwhile.
    }
    for (const [dir, watcher] of watchers) {
      if (!wanted.has(dir)) {
        watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of wanted) watch(dir);
  }

  sync();
  return {
    sync,
    close() {
      closed = true;
      timers.clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
