// What one open rule file holds apart from its view: the published text, the draft the server keeps, the
// autosave, publish and check round trips, and the problems and test badge they report. No DOM here: the
// editor pane renders what this tells it, and unit tests drive it with a fake store and a fake clock.
import { ApiError, errorMessage } from '../api.js';
import type { SaveResult } from '../types.js';
import type { LocalCopy } from './local-copy.js';
import { problemsOf, testOutcome, type CheckResult, type Problem, type TestBadge } from './problems.js';

const AUTOSAVE_MS = 1200;
/** A failed autosave is tried again after this long (and at once when the service is back). */
const AUTOSAVE_RETRY_MS = 5000;

/** Which version of the file the editor shows: what a dry run of the editor's text runs. */
export type EditorVersion = 'unsaved' | 'draft' | 'published';

/** The server side of one file (the pane passes the API; tests pass a fake). */
export interface DraftStore {
  saveDraft(text: string): Promise<SaveResult>;
  publish(text: string): Promise<SaveResult>;
  check(text: string): Promise<CheckResult>;
  discardDraft(): Promise<void>;
  deleteFile(): Promise<void>;
}

export interface Timers {
  set(run: () => void, ms: number): number;
  clear(handle: number | undefined): void;
}

/** What the view shows of the file's state: the status line and the buttons that depend on it. */
export interface SyncStatus {
  label: string;
  dirty: boolean;
  canDiscard: boolean;
  saveLabel: string;
  canSave: boolean;
  showDraftBanner: boolean;
}

/** What the sync tells the view; each call replaces what was shown before. */
export interface SyncView {
  problems(problems: Problem[]): void;
  status(note: string): void;
  badge(badge: TestBadge | null): void;
  /** Puts this text in the editor (the published file, after the draft was discarded). */
  replace(text: string): void;
  /** The file was published, its draft discarded, or it was deleted: the file list needs a refresh. */
  stored(deleted?: boolean): void;
  /** The editor's text is now the published file (a publish the service accepted). */
  published?(): void;
}

export interface DraftSyncOptions {
  store: DraftStore;
  isVars: boolean;
  published: string;
  /** The stored draft, if the file has one. */
  draft: string | null;
  /** The text in the editor now. */
  text: () => string;
  view: SyncView;
  timers: Timers;
  now?: () => Date;
  /** Where unsaved text is kept in the browser until the service has it. */
  local?: LocalCopy;
}

export interface DraftSync {
  /** What the server holds for the file (draft or published): the text the editor opens with. */
  readonly storedText: string;
  /** Text kept in this browser that the service never got (an expired session, a reload, a dead service), or null. */
  readonly restoredText: string | null;
  status(note?: string): SyncStatus;
  version(): EditorVersion;
  isDirty(): boolean;
  /** The text changed: the badge goes (it belongs to the text it ran on) and the autosave is scheduled. */
  edited(): void;
  saveDraft(note?: string): Promise<void>;
  publish(): Promise<void>;
  check(withTests: boolean): Promise<void>;
  /** Resolves once the writes asked so far have their answers (and said their word): a later note is not overwritten. */
  afterWrites(): Promise<void>;
  discard(): Promise<void>;
  deleteFile(): Promise<void>;
  stop(): void;
}

export function createDraftSync(options: DraftSyncOptions): DraftSync {
  const { store, view, timers, text } = options;
  const now = options.now ?? (() => new Date());
  let publishedText = options.published;
  let storedText = options.draft ?? publishedText;
  let hasDraft = options.draft !== null && options.draft !== publishedText;
  let bannerShown = hasDraft;
  let timer: number | undefined;
  /** "Run tests" was used on this file: a publish runs them again so the badge matches the published text. */
  let testsRan = false;
  let stopped = false;
  const local = options.local;
  const kept = local?.read() ?? null;
  const restoredText = kept !== null && kept !== storedText ? kept : null;
  if (kept !== null && restoredText === null) local?.clear();
  /** The service has `content`: the browser's copy goes unless the text moved on since. */
  const stored = (content: string): void => {
    if (text() === content) local?.clear();
  };

  const time = () => now().toLocaleTimeString();

  // The service's writes for this file go one at a time, in the order asked: an autosave that was on its way when
  // the person published (or published while it was) is sent after the publish's answer and then has nothing
  // left to save, instead of reaching the service after the publish and keeping a draft of the published text.
  let writes: Promise<unknown> = Promise.resolve();
  const inTurn =
    <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
    (...args: A): Promise<void> => {
      const next = writes.then(() => write(...args));
      writes = next.catch(() => undefined);
      return next;
    };

  function status(note = ''): SyncStatus {
    const current = text();
    const unsaved = current !== storedText;
    const unpublished = current !== publishedText;
    if (!hasDraft) bannerShown = false;
    const label = unsaved ? '● Unsaved changes' : unpublished ? '● Draft saved, not published' : 'Published';
    return {
      label: note ? `${label} · ${note}` : label,
      dirty: unsaved || unpublished,
      canDiscard: hasDraft,
      saveLabel: unpublished ? (options.isVars ? 'Save' : 'Save & publish') : 'Saved',
      canSave: unpublished,
      showDraftBanner: bannerShown,
    };
  }

  /** Saves the editor's text as a draft unless the service has it; called in its turn (`saveDraft`). */
  async function saveDraftNow(note?: string): Promise<void> {
    const content = text();
    if (content === storedText || stopped) return;
    timers.clear(timer);
    try {
      const result = await store.saveDraft(content);
      storedText = content;
      stored(content);
      const hadDraft = hasDraft;
      hasDraft = content !== publishedText;
      view.problems(problemsOf(result));
      view.status(note ?? `draft saved ${time()}`);
      if (hadDraft !== hasDraft) view.stored(); // the file list marks files with drafts
    } catch (err) {
      // Keep the text and try again: by itself after a while, and at once when the service is back.
      view.status(`draft not saved: ${errorMessage(err)} · retrying`);
      timer = timers.set(() => void saveDraft(), AUTOSAVE_RETRY_MS);
    }
  }
  const saveDraft = inTurn(saveDraftNow);

  async function check(withTests: boolean): Promise<void> {
    const content = text();
    try {
      const result = await store.check(content);
      if (content !== text()) return; // typed on meanwhile: the next check or save says more
      if (!withTests) return view.problems(problemsOf({ ok: true, validation: result.validation }));
      testsRan = true;
      const outcome = testOutcome(result);
      view.problems(outcome.problems);
      view.badge(outcome.badge);
    } catch (err) {
      view.badge({ text: `Cannot check: ${errorMessage(err)}`, kind: 'error' });
    }
  }

  return {
    get storedText() {
      return storedText;
    },
    restoredText,
    status,
    version: () => (text() !== storedText ? 'unsaved' : text() !== publishedText ? 'draft' : 'published'),
    isDirty: () => text() !== storedText,
    edited() {
      const current = text();
      if (current === storedText) local?.clear();
      else local?.write(current);
      view.badge(null);
      timers.clear(timer);
      timer = timers.set(() => void saveDraft(), AUTOSAVE_MS);
    },
    saveDraft,
    check,
    afterWrites: () => writes.then(() => undefined),

    publish: inTurn(async () => {
      timers.clear(timer);
      const content = text();
      try {
        const result = await store.publish(content);
        publishedText = content;
        storedText = content;
        stored(content);
        hasDraft = false;
        view.problems(problemsOf(result));
        view.published?.();
        view.status(`saved ${time()}`);
        view.stored();
        if (testsRan) await check(true); // the badge tells about the published text
      } catch (err) {
        if (err instanceof ApiError && err.status === 422) {
          view.problems(problemsOf(err));
          view.status('not published: fix the error first');
          await saveDraftNow('not published: fix the error first (kept as a draft)'); // keep the work
        } else {
          view.status(`not saved: ${errorMessage(err)}`);
        }
      }
    }),

    discard: inTurn(async () => {
      try {
        await store.discardDraft();
        hasDraft = false;
        storedText = publishedText;
        view.replace(publishedText);
        local?.clear();
        view.problems([]);
        view.status('draft discarded');
        view.stored();
      } catch (err) {
        view.status(errorMessage(err));
      }
    }),

    deleteFile: inTurn(async () => {
      try {
        await store.deleteFile();
        local?.clear();
        storedText = text(); // nothing left to guard
        view.stored(true);
      } catch (err) {
        view.status(`not deleted: ${errorMessage(err)}`);
      }
    }),

    stop() {
      stopped = true;
      timers.clear(timer);
    },
  };
}
