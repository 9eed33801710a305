import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import { openCursorStore, type CursorStore } from './cursor-store.js';

/** Where earlier versions kept the one cursor (of the dms the service ran with). */
export const LEGACY_CURSOR_FILE = 'dms-cursor.json';

/** `dms-cursor-demo.json`, or `dms-cursor-<hash of the URL>.json`. */
export function cursorFileName(key: string): string {
  return key === 'demo'
    ? 'dms-cursor-demo.json'
    : `dms-cursor-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`;
}

export interface DmsCursors {
  /** The cursor of the dms with this key ("demo" or its URL). */
  forDms(key: string): CursorStore;
}

/**
 * Catch-up cursors, one per dms: how far the service has seen each dms it was connected to, so switching to
 * another dms (and back) neither skips nor re-runs the first one's changes. The one cursor earlier versions
 * kept belongs to the dms the service starts with, as it did then.
 */
export function openDmsCursors(dataDir: string, startKey: string, logger: Logger): DmsCursors {
  const legacy = path.join(dataDir, LEGACY_CURSOR_FILE);
  const start = path.join(dataDir, cursorFileName(startKey));
  if (fs.existsSync(legacy) && !fs.existsSync(start)) {
    try {
      fs.renameSync(legacy, start);
    } catch (err) {
      logger.warn(`dms cursor: could not rename ${legacy} to ${start}: ${errorMessage(err)}`);
    }
  }
  const stores = new Map<string, CursorStore>();
  return {
    forDms(key) {
      let store = stores.get(key);
      if (!store) stores.set(key, (store = openCursorStore(path.join(dataDir, cursorFileName(key)), logger)));
      return store;
    },
  };
}
