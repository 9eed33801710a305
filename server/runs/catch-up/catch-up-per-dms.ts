import type { CatchUpService } from './catch-up-service.js';

/** The catch-up of the dms in use, replaced by a new one (with that dms's cursor) when the dms changes. */
export interface CatchUpPerDms extends CatchUpService {
  /**
   * Stops the current catch-up (a running one finishes first), runs `between` (the switch to the next dms), then
   * starts the catch-up of the dms in use: the next one, or the same one when `between` failed.
   */
  replace(between: () => Promise<void>): Promise<void>;
}

/** A stable CatchUpService in front of one catch-up per dms; `create` builds the one for the dms in use now. */
export function catchUpPerDms(create: () => CatchUpService): CatchUpPerDms {
  let current = create();
  let stopped = false;
  return {
    start: () => current.start(),
    runNow: (reason) => current.runNow(reason),
    heard: () => current.heard(),
    state: () => current.state(),
    async replace(between) {
      await current.stop();
      try {
        await between();
      } finally {
        if (!stopped) {
          current = create();
          await current.start();
        }
      }
    },
    async stop() {
      stopped = true;
      await current.stop();
    },
  };
}
