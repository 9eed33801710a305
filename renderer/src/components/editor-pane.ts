// One rule file open in the editor: the view. What the file holds and how it syncs with the server (drafts,
// publish, checks, problems, the test badge) is the DOM-free draft sync (editor/draft-sync.ts); this file
// builds the toolbar, the problems list and the editor, and shows what the sync reports.
import type { EditorView } from '@codemirror/view';
import { request } from '../api.js';
import { uiConfig } from '../session.js';
import { confirmDialog } from './confirm-dialog.js';
import { demoNameFix } from './demo-name-fix.js';
import { onReconnect } from '../connection.js';
import { h } from '../dom.js';
import { readableTimes } from '../value-format.js';
import { createEditor, replaceContent, revealPosition, showProblems, type Problem } from '../editor/create-editor.js';
import { createDraftSync, type DraftStore, type EditorVersion } from '../editor/draft-sync.js';
import { browserStorage, localCopy } from '../editor/local-copy.js';
import type { CheckResult } from '../editor/problems.js';
import type { CompletionData } from '../editor/schema-completion.js';
import type { RuleFileContent, RuleFileEntry, SaveResult } from '../types.js';
import { fileError } from './file-tree.js';

export type { EditorVersion } from '../editor/draft-sync.js';

/** What a new, empty rule file starts with: enough to see the shape, all of it easy to delete. */
export const NEW_FILE_TEMPLATE = `# Rules in this file run in order on every new or changed document.
# Reference: docs/rules.md. Ctrl-Space suggests keys, operators and your dms's names.
rules:
  - id: my-first-rule            # lower case, unique across all files
    description: What this rule does
    when:                        # leave out to match every document
      content: { matches: '(?i)invoice|rechnung' }
    actions:
      - set_title: "Invoice {{ doc.title }}"
    tests:                       # examples checked on every save ("Run tests")
      - document: { content: "Invoice 123" }
        expect: { matched: true }
`;

export interface EditorPane {
  element: HTMLElement;
  /** True while the text differs from what is stored (published or as a draft). */
  isDirty(): boolean;
  /** Puts the keyboard focus in the editor. */
  focus(): void;
  /** The text in the editor now. */
  text(): string;
  /** Whether that text is unsaved, the stored draft, or the published file. */
  version(): EditorVersion;
  stop(): void;
}

export interface EditorPaneOptions {
  file: RuleFileEntry;
  completion: (() => CompletionData) | null;
  onContent: (content: string) => void;
  /** The file was published, its draft discarded, or it was deleted: the list needs a refresh. */
  onStored: (deleted?: boolean) => void;
}

function url(id: string): string {
  return `/api/ui/rules/${encodeURIComponent(id)}`;
}

/** The API of one rule file, as the draft sync needs it. */
function apiStore(id: string): DraftStore {
  return {
    saveDraft: (text) => request<SaveResult>(url(id), { method: 'PUT', text, query: { draft: true } }),
    publish: (text) => request<SaveResult>(url(id), { method: 'PUT', text }),
    check: (text) => request<CheckResult>(`${url(id)}/check`, { method: 'POST', text }),
    discardDraft: () => request(url(id), { method: 'DELETE', query: { draft: true } }).then(() => undefined),
    deleteFile: () => request(url(id), { method: 'DELETE' }).then(() => undefined),
  };
}

const browserTimers = {
  set: (run: () => void, ms: number) => window.setTimeout(run, ms),
  clear: (handle: number | undefined) => window.clearTimeout(handle),
};

export async function editorPane(options: EditorPaneOptions): Promise<EditorPane> {
  const { file } = options;
  const [published, config] = await Promise.all([request<RuleFileContent>(url(file.id)), uiConfig().catch(() => null)]);
  let draft: string | null = null;
  if (file.has_draft) {
    draft = await request<RuleFileContent>(url(file.id), { query: { draft: true } }).then(
      (d) => d.content,
      () => null,
    );
  }
  let view: EditorView | null = null;
  const loadError = fileError(file);
  /** The published file failed to load on the service (until a publish replaces it). */
  let brokenOnDisk = loadError !== null;

  const state = h('span', { class: 'save-state', attrs: { id: 'save-state', role: 'status', 'aria-live': 'polite' } });
  const problemsBox = h('div', {
    class: 'problems',
    attrs: { id: 'problems', 'aria-live': 'polite', 'aria-label': 'Problems in this file' },
  });
  const saveButton = h(
    'button',
    { class: 'primary', attrs: { type: 'button', id: 'save-button', title: 'Save and publish (Ctrl/Cmd-S)' } },
    'Save',
  );
  const discardButton = h('button', { attrs: { type: 'button', id: 'discard-button' } }, 'Discard draft');
  const deleteButton = h('button', { class: 'danger', attrs: { type: 'button', id: 'delete-button' } }, 'Delete file');
  const testButton = h(
    'button',
    {
      attrs: {
        type: 'button',
        id: 'run-tests-button',
        hidden: file.is_vars,
        title: "Run this file's tests: examples on the editor's text",
      },
    },
    'Run tests',
  );
  // Shown while the open text is an unpublished draft: it goes once the draft is published or discarded.
  const draftBanner = h(
    'p',
    { class: 'banner small', attrs: { role: 'note' } },
    'You are editing an unpublished draft. Save to publish it, or discard it.',
  );
  const testSummary = h('span', { class: 'test-summary', attrs: { id: 'test-summary', role: 'status' } });
  const host = h('div', { class: 'editor-host' });

  function renderProblems(problems: Problem[]): void {
    if (view) showProblems(view, problems);
    problemsBox.dataset.count = String(problems.length);
    problemsBox.replaceChildren(
      ...problems.map((p) => {
        const where = p.line ? `Line ${p.line}${p.column ? `, column ${p.column}` : ''}: ` : '';
        // The server may name the place too; times read as the reader writes them.
        const message = readableTimes(p.message.replace(/^line \d+(, column \d+)?:\s*/i, ''));
        const item = h(
          'button',
          { class: `problem ${p.severity}`, attrs: { type: 'button', 'data-line': p.line ?? null } },
          `${p.severity === 'error' ? '✗' : '!'} ${where}${message}`,
        );
        item.addEventListener('click', () => view && p.line && revealPosition(view, p.line, p.column));
        const fix = config?.demo && p.severity === 'error' ? demoNameFix(p.message, nameCreated) : null;
        return fix ? h('div', { class: 'problem-with-fix' }, item, fix) : item;
      }),
    );
  }

  /**
   * A name the demo dms lacked now exists: check again, so the problem goes and the next one shows. Both wait for
   * the answers of writes on their way (a refused publish keeps its draft), which would say their older word last.
   */
  function nameCreated(note: string): void {
    void sync.afterWrites().then(() => {
      renderState(note);
      void sync.check(false);
    });
  }

  const sync = createDraftSync({
    store: apiStore(file.id),
    isVars: file.is_vars,
    published: published.content,
    draft,
    text: () => view?.state.doc.toString() ?? sync.storedText,
    timers: browserTimers,
    local: localCopy(file.id, browserStorage()),
    view: {
      problems: renderProblems,
      status: (note) => renderState(note),
      badge(badge) {
        testSummary.textContent = badge?.text ?? '';
        if (badge) testSummary.dataset.kind = badge.kind;
        else delete testSummary.dataset.kind;
      },
      replace: (text) => view && replaceContent(view, text),
      stored: (deleted) => options.onStored(deleted),
      published: () => {
        brokenOnDisk = false;
        loadErrorBox?.remove();
      },
    },
  });
  const startText =
    sync.restoredText ?? (sync.storedText === '' && !file.is_vars ? NEW_FILE_TEMPLATE : sync.storedText);

  function renderState(note = ''): void {
    const status = sync.status(note);
    // The file on disk did not load: its rules do not run, so it is not "saved" or "published" in any useful sense.
    const broken = brokenOnDisk && !status.dirty;
    state.textContent = broken
      ? '✗ The published file does not load: its rules do not run until it is fixed and saved'
      : status.label;
    state.dataset.kind = broken ? 'error' : status.dirty ? 'dirty' : 'clean';
    draftBanner.hidden = !status.showDraftBanner;
    discardButton.disabled = !status.canDiscard;
    discardButton.title = status.canDiscard
      ? 'Throw the draft away and go back to the published file'
      : 'There is no draft to discard';
    saveButton.textContent = broken ? 'Save' : status.saveLabel;
    saveButton.disabled = !status.canSave; // nothing to save while the text is the published one
  }

  const stopReconnect = onReconnect(() => void sync.saveDraft());
  const publish = (): void => {
    saveButton.disabled = true; // until the answer: a second Ctrl-S does not publish twice
    void sync.publish();
  };

  discardButton.addEventListener('click', () => {
    void confirmDialog('Discard the draft and go back to the published file?', 'Discard the draft').then((yes) =>
      yes ? sync.discard() : undefined,
    );
  });
  deleteButton.addEventListener('click', () => {
    const question = `Delete ${file.path}? Its rules stop running. This cannot be undone.`;
    void confirmDialog(question, 'Delete the file').then((yes) => (yes ? sync.deleteFile() : undefined));
  });
  saveButton.addEventListener('click', publish);
  testButton.addEventListener('click', () => {
    testButton.disabled = true;
    void sync.check(true).finally(() => (testButton.disabled = false));
  });
  // Ctrl/Cmd-S anywhere on the page saves too (the editor's own key binding covers it while typing).
  const onKey = (event: KeyboardEvent): void => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.key.toLowerCase() !== 's' || view?.hasFocus) return;
    event.preventDefault();
    publish();
  };
  window.addEventListener('keydown', onKey);

  const loadErrorBox = loadError
    ? h('p', { class: 'error-box', attrs: { role: 'alert' } }, `The published file did not load: ${loadError}`)
    : null;
  const element = h(
    'section',
    { class: 'editor-pane', attrs: { 'aria-labelledby': 'editor-title' } },
    // One layout at every width: the name, then the buttons on one line (each keeps its place and width),
    // then what happened on its own line, so neither a long name nor a longer status moves a button.
    h(
      'div',
      { class: 'editor-toolbar' },
      h('h2', { attrs: { id: 'editor-title' } }, file.path),
      h('div', { class: 'toolbar-buttons' }, testButton, discardButton, saveButton, deleteButton),
    ),
    h('div', { class: 'editor-status' }, state, testSummary),
    problemsBox,
    draftBanner,
    loadErrorBox,
    host,
  );

  view = createEditor({
    parent: host,
    content: startText,
    completion: options.completion,
    label: `Contents of ${file.path}`,
    onSave: publish,
    onChange: (content) => {
      sync.edited();
      renderState();
      options.onContent(content);
    },
  });
  renderState();
  if (sync.restoredText !== null) {
    void sync.saveDraft('unsaved text kept in this browser, saved as a draft');
  }
  // Show why the published file did not load, at its place, until the check of the open text says more.
  if (file.error && typeof file.error === 'object' && file.error.line) {
    renderProblems([
      {
        message: file.error.message ?? 'This file did not load.',
        line: file.error.line,
        column: file.error.column ?? undefined,
        severity: 'error',
      },
    ]);
  }
  void sync.check(false); // the open file's or draft's diagnostics at once, not after the next keystroke
  revealRule(view, new URLSearchParams(location.search).get('rule'));

  return {
    element,
    isDirty: () => sync.isDirty(),
    focus: () => view?.focus(),
    text: () => view?.state.doc.toString() ?? sync.storedText,
    version: (): EditorVersion => sync.version(),
    stop() {
      sync.stop();
      stopReconnect();
      window.removeEventListener('keydown', onKey);
      view?.destroy();
    },
  };
}

/** Opens at a rule's `id:` line (trace links name the rule: /rules/<file>?rule=<id>). */
function revealRule(view: EditorView, ruleId: string | null): void {
  if (!ruleId) return;
  const lines = view.state.doc.toString().split('\n');
  const index = lines.findIndex((l) =>
    new RegExp(`^\\s*-?\\s*id:\\s*["']?${ruleId.replace(/[^a-z0-9_-]/g, '')}["']?\\s*(#.*)?$`).test(l),
  );
  if (index >= 0) revealPosition(view, index + 1, lines[index].indexOf('id:') + 1);
}
