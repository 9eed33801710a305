import type { CatchUpService } from './catch-up-service.js';

/** The catch-up of the dms in use, replaced by a new one (with that dms's cursor) when the dms changes. */
export interface CatchUpPerDms extends CatchUpService {
  /** Stops the current catch-up (a running one finishes first), then starts the next dms's. */
  replace(): Promise<void>;
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
    async replace() {
      await current.stop();
      if (stopped) return;
      current = create();
      current.start();
    },
    async stop() {
      stopped = true;
      await current.stop();
    },
  };
}
