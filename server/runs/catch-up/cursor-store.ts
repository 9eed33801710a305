import fs from 'node:fs';
import { writeFileAtomic } from '../../atomic-write.js';
import { moveAside } from '../../move-aside.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../error-message.js';

/** How far the service has seen the dms: documents whose `modified` is at or after `since` are not handled yet. */
export interface DmsCursor {
  /** A `modified` time in the dms's clock (ISO). */
  since: string;
  /** When the dms last reached the service (webhook, poll or catch-up), for health and the header. */
  last_heard_at: string | null;
}

export interface CursorStore {
  /** Null on the very first start (no file yet). */
  read(): DmsCursor | null;
  write(cursor: DmsCursor): Promise<void>;
}

export function openCursorStore(file: string, logger: Logger): CursorStore {
  let current: DmsCursor | null = null;
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DmsCursor>;
    if (typeof parsed.since !== 'string' || Number.isNaN(Date.parse(parsed.since)))
      throw new Error('unexpected structure');
    current = {
      since: parsed.since,
      last_heard_at: typeof parsed.last_heard_at === 'string' ? parsed.last_heard_at : null,
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') moveAside(file, 'dms cursor', errorMessage(err), logger);
  }
  return {
    read: () => current && { ...current },
    async write(cursor) {
      current = { ...cursor };
      await writeFileAtomic(file, JSON.stringify(current), { mode: 0o600 });
    },
  };
}
