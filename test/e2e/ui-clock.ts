// The Web UI's timers (autosave, job and jobs-list polling, reconnect checks, debounces) on Playwright's clock:
// a test that waits for one moves the page's time forward instead of sleeping through the real delay.
// Installed only by the tests that wait on a UI timer; once installed, time still flows as usual, so
// everything else on the page behaves as before. Network I/O is real either way.
import { errors, type Locator, type Page } from 'playwright-core';

/** The renderer's delays (renderer/src), as far as a test moves time past them. */
export const UI_TIMERS = {
  /** editor/draft-sync.ts: AUTOSAVE_MS after the last keystroke. */
  autosave: 1200,
  /** editor/draft-sync.ts: AUTOSAVE_RETRY_MS after a failed draft save. */
  autosaveRetry: 5000,
  /** components/job-panel.ts: POLL_MS between reads of a running job. */
  jobPoll: 600,
  /** components/jobs-table.ts: REFRESH_MS between reads of the jobs list. */
  jobsRefresh: 2000,
  /** connection.ts: RETRY_MS between checks while the service is unreachable. */
  reconnect: 2000,
  /** pages/shell.ts: DMS_RECHECK_MS between dms checks while the "does not answer" banner shows. */
  dmsRecheck: 3000,
  /** components/vars-preview.ts: DEBOUNCE_MS after the last keystroke. */
  varsPreview: 400,
  /** components/document-picker.ts: the search runs 250 ms after the last keystroke. */
  documentPicker: 250,
} as const;

const installed = new WeakSet<object>();

/** Puts the page's timers and `Date` on Playwright's clock, once per browser context; time keeps flowing. */
export async function useClock(page: Page): Promise<void> {
  const context = page.context();
  if (installed.has(context)) return;
  await page.clock.install();
  installed.add(context);
}

/**
 * Waits until `target` reaches `state`; while it has not, moves the page's clock on by `stepMs` so the UI timer
 * it waits for fires now. Moving time further than needed only fires timers sooner: the condition, never the
 * clock, decides when the test goes on. Fails after `timeoutMs` of real time, as a plain waitFor would.
 */
export async function advanceUntil(
  page: Page,
  target: Locator,
  stepMs: number,
  state: 'attached' | 'detached' | 'visible' | 'hidden' = 'visible',
  timeoutMs = 15_000,
): Promise<void> {
  await useClock(page);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // A short look: the answer to a request the last step started may still be on its way.
      await target.waitFor({ state, timeout: 200 });
      return;
    } catch (err) {
      if (!(err instanceof errors.TimeoutError) || Date.now() > deadline) throw err;
    }
    await page.clock.fastForward(stepMs);
  }
}
