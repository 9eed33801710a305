// One open rule file's sync without its DOM, for the unit tests: a fake store that records its calls, a fake
// clock whose timers run only when the test says so, and a view that keeps what it was told.
import { createDraftSync, type DraftStore } from '../../../renderer/src/editor/draft-sync.js';
import type { LocalCopy } from '../../../renderer/src/editor/local-copy.js';
import type { Problem, TestBadge } from '../../../renderer/src/editor/problems.js';
import type { FileProblem, SaveResult } from '../../../renderer/src/types.js';

/** A fake clock: timers run only when the test says so. */
function fakeTimers() {
  let next = 1;
  const pending = new Map<number, { run: () => void; ms: number }>();
  return {
    set: (run: () => void, ms: number) => (pending.set(next, { run, ms }), next++),
    clear: (handle: number | undefined) => {
      if (handle !== undefined) pending.delete(handle);
    },
    delays: () => [...pending.values()].map((t) => t.ms),
    async fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const t of due) t.run();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/**
 * Opens a file whose service side is `store` (anything not given answers ok) and that starts as `start`;
 * `local` is the browser's copy of unsaved text, if the test uses one.
 */
export function harness(
  store: Partial<DraftStore>,
  start = { published: 'rules: []\n', draft: null as string | null },
  local?: LocalCopy,
) {
  const shown = { problems: [] as Problem[], notes: [] as string[], badge: null as TestBadge | null, stored: 0 };
  let text = start.draft ?? start.published;
  const timers = fakeTimers();
  const calls: string[] = [];
  const full: DraftStore = {
    saveDraft: async (t) => (calls.push(`draft:${t}`), { ok: true }),
    publish: async (t) => (calls.push(`publish:${t}`), { ok: true }),
    check: async () => ({ validation: { ok: true }, tests: [] }),
    discardDraft: async () => void calls.push('discard'),
    deleteFile: async () => void calls.push('delete'),
    ...store,
  };
  const sync = createDraftSync({
    store: full,
    isVars: false,
    published: start.published,
    draft: start.draft,
    text: () => text,
    timers,
    now: () => new Date(0),
    local,
    view: {
      problems: (p) => (shown.problems = p),
      status: (note) => shown.notes.push(note),
      badge: (b) => (shown.badge = b),
      replace: (t) => (text = t),
      stored: () => shown.stored++,
    },
  });
  return {
    sync,
    shown,
    timers,
    calls,
    /** The person types: the text changes and the sync hears of it. */
    type: (t: string) => ((text = t), sync.edited()),
    /** The editor holds `t` without an edit event (as after a restore). */
    set: (t: string) => (text = t),
    text: () => text,
  };
}

/** A draft save's answer: stored, with these validation problems (errors) and warnings. */
export function draftAnswer(problems: FileProblem[], warnings: string[]): SaveResult {
  return { ok: true, validation: { ok: false, error: 'first', problems, warnings } };
}

/** A problem on one line, from `column` to `endColumn`. */
export function at(message: string, line: number, column: number, endColumn: number): FileProblem {
  return { message, line, column, end_line: line, end_column: endColumn };
}
