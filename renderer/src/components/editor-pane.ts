// One rule file open in the editor: load (draft first, if any), autosave drafts, publish with Ctrl/Cmd-S,
// discard the draft, delete the file; validation problems go to their line and column.
import type { EditorView } from '@codemirror/view';
import { ApiError, errorMessage, request } from '../api.js';
import { onReconnect } from '../connection.js';
import { h } from '../dom.js';
import { createEditor, revealPosition, showProblems, type Problem } from '../editor/create-editor.js';
import type { CompletionData } from '../editor/schema-completion.js';
import type { RuleFileContent, RuleFileEntry, RuleTestReport, SaveResult } from '../types.js';
import { fileError } from './file-tree.js';

const AUTOSAVE_MS = 1200;
/** A failed autosave is tried again after this long (and at once when the service is back). */
const AUTOSAVE_RETRY_MS = 5000;

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

/** Which version of the file the editor shows: what a dry run of the editor's text runs. */
export type EditorVersion = 'unsaved' | 'draft' | 'published';

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

/** Problems a save answer reports: a refused publish, or a draft's non-blocking validation and warnings. */
export function problemsOf(result: SaveResult | ApiError): Problem[] {
  if (result instanceof ApiError)
    return [{ message: result.message, line: result.line, column: result.column, severity: 'error' }];
  const out: Problem[] = [];
  const v = result.validation;
  if (v && v.ok === false && v.error) out.push({ message: v.error, line: v.line, column: v.column, severity: 'error' });
  else if (result.error)
    out.push({ message: result.error, line: result.line, column: result.column, severity: 'error' });
  for (const w of [...(result.warnings ?? []), ...(v?.warnings ?? [])]) {
    out.push(typeof w === 'string' ? { message: w, severity: 'warning' } : { ...w, severity: 'warning' });
  }
  return out;
}

export async function editorPane(options: EditorPaneOptions): Promise<EditorPane> {
  const { file } = options;
  const published = await request<RuleFileContent>(url(file.id));
  let draft: string | null = null;
  if (file.has_draft) {
    draft = await request<RuleFileContent>(url(file.id), { query: { draft: true } }).then(
      (d) => d.content,
      () => null,
    );
  }
  let publishedText = published.content;
  let storedText = draft ?? publishedText; // last text the server holds for this file (draft or published)
  const startText = storedText === '' && !file.is_vars ? NEW_FILE_TEMPLATE : storedText;
  let hasDraft = draft !== null && draft !== publishedText;
  let timer: number | undefined;
  let view: EditorView | null = null;
  /** "Run tests" was used on this file: a publish runs them again so the badge matches the published text. */
  let testsRan = false;

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
    { class: 'banner small', attrs: { role: 'note', hidden: !(draft !== null && hasDraft) } },
    'You are editing an unpublished draft. Save to publish it, or discard it.',
  );
  const testSummary = h('span', { class: 'test-summary', attrs: { id: 'test-summary', role: 'status' } });
  const host = h('div', { class: 'editor-host' });

  const text = (): string => view?.state.doc.toString() ?? storedText;

  function renderState(extra = ''): void {
    const unsaved = text() !== storedText;
    const unpublished = text() !== publishedText;
    state.textContent = unsaved ? '● Unsaved changes' : unpublished ? '● Draft saved, not published' : 'Published';
    state.dataset.kind = unsaved || unpublished ? 'dirty' : 'clean';
    if (extra) state.textContent += ` · ${extra}`;
    discardButton.disabled = !hasDraft;
    if (!hasDraft) draftBanner.hidden = true;
    discardButton.title = hasDraft
      ? 'Throw the draft away and go back to the published file'
      : 'There is no draft to discard';
    saveButton.textContent = unpublished ? (file.is_vars ? 'Save' : 'Save & publish') : 'Saved';
    saveButton.disabled = !unpublished;
  }

  function renderProblems(problems: Problem[]): void {
    if (view) showProblems(view, problems);
    problemsBox.dataset.count = String(problems.length);
    problemsBox.replaceChildren(
      ...problems.map((p) => {
        const where = p.line ? `Line ${p.line}${p.column ? `, column ${p.column}` : ''}: ` : '';
        const message = p.message.replace(/^line \d+(, column \d+)?:\s*/i, ''); // the server may name the place too
        const item = h(
          'button',
          { class: `problem ${p.severity}`, attrs: { type: 'button', 'data-line': p.line ?? null } },
          `${p.severity === 'error' ? '✗' : '!'} ${where}${message}`,
        );
        item.addEventListener('click', () => view && p.line && revealPosition(view, p.line, p.column));
        return item;
      }),
    );
  }

  /** Every validation stage on the editor's text (nothing stored); with `tests`, each test's outcome at its line too. */
  async function check(withTests: boolean): Promise<void> {
    const content = text();
    try {
      const r = await request<{ validation: SaveResult['validation']; tests: RuleTestReport[] }>(
        `${url(file.id)}/check`,
        { method: 'POST', text: content },
      );
      if (content !== text()) return; // typed on meanwhile: the next check or save says more
      const problems = problemsOf({ ok: true, validation: r.validation });
      const blocking =
        r.validation?.ok === false && r.tests.length === 0 ? problems.find((p) => p.severity === 'error') : undefined;
      if (withTests && blocking) {
        // Tests cannot run on text that does not parse or validate: say what to fix, where.
        renderProblems(problems);
        const what = /yaml/i.test(blocking.message) ? 'the YAML' : 'the error';
        testSummary.textContent = `Tests not run: fix ${what} first${blocking.line ? ` (line ${blocking.line})` : ''}`;
        testSummary.dataset.kind = 'error';
        testsRan = true;
      } else if (withTests) {
        testsRan = true;
        const failed = r.tests.filter((t) => !t.ok);
        // The validation names the first failing test only; show each at its own line instead.
        const others = problems.filter(
          (p) => !failed.some((t) => p.line === t.line) && !/failed its test/.test(p.message),
        );
        renderProblems([
          ...failed.map((t): Problem => ({
            message: `${t.rule_id}: ${t.message}`,
            line: t.line,
            column: t.column,
            severity: 'error',
          })),
          ...others,
        ]);
        const passed = r.tests.length - failed.length;
        testSummary.textContent =
          r.tests.length === 0
            ? 'No tests in this file: add examples under tests:.'
            : `${r.tests.length} test${r.tests.length === 1 ? '' : 's'}: ${passed} passed${failed.length ? `, ${failed.length} failed` : ''}`;
        testSummary.dataset.kind = failed.length ? 'error' : 'ok';
      } else renderProblems(problems);
    } catch (err) {
      testSummary.textContent = `Cannot check: ${errorMessage(err)}`;
      testSummary.dataset.kind = 'error';
    }
  }

  function clearTestSummary(): void {
    testSummary.textContent = '';
    delete testSummary.dataset.kind;
  }

  async function saveDraft(note = `draft saved ${new Date().toLocaleTimeString()}`): Promise<void> {
    const content = text();
    if (content === storedText) return;
    window.clearTimeout(timer);
    try {
      const r = await request<SaveResult>(url(file.id), { method: 'PUT', text: content, query: { draft: true } });
      storedText = content;
      const hadDraft = hasDraft;
      hasDraft = content !== publishedText;
      renderProblems(problemsOf(r));
      renderState(note);
      if (hadDraft !== hasDraft) options.onStored(); // the tree marks files with drafts
    } catch (err) {
      // Keep the text and try again: by itself after a while, and at once when the service is back.
      renderState(`draft not saved: ${errorMessage(err)} · retrying`);
      timer = window.setTimeout(() => void saveDraft(), AUTOSAVE_RETRY_MS);
    }
  }
  const stopReconnect = onReconnect(() => void saveDraft());

  async function publish(): Promise<void> {
    window.clearTimeout(timer);
    const content = text();
    saveButton.disabled = true;
    try {
      const r = await request<SaveResult>(url(file.id), { method: 'PUT', text: content });
      publishedText = content;
      storedText = content;
      hasDraft = false;
      renderProblems(problemsOf(r));
      renderState(`saved ${new Date().toLocaleTimeString()}`);
      options.onStored();
      if (testSummary.dataset.kind || testsRan) void check(true); // the badge tells about the published text
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        renderProblems(problemsOf(err));
        renderState('not published: fix the error first');
        void saveDraft('not published: fix the error first (kept as a draft)'); // keep the work
      } else {
        renderState(`not saved: ${errorMessage(err)}`);
      }
      saveButton.disabled = false;
    }
  }

  discardButton.addEventListener('click', () => {
    if (!window.confirm('Discard the draft and go back to the published file?')) return;
    request(url(file.id), { method: 'DELETE', query: { draft: true } })
      .then(() => {
        hasDraft = false;
        storedText = publishedText;
        view?.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: publishedText } });
        renderProblems([]);
        renderState('draft discarded');
        options.onStored();
      })
      .catch((err: unknown) => renderState(errorMessage(err)));
  });
  deleteButton.addEventListener('click', () => {
    if (!window.confirm(`Delete ${file.path}? Its rules stop running. This cannot be undone.`)) return;
    request(url(file.id), { method: 'DELETE' })
      .then(() => {
        storedText = text(); // nothing left to guard
        options.onStored(true);
      })
      .catch((err: unknown) => renderState(`not deleted: ${errorMessage(err)}`));
  });
  saveButton.addEventListener('click', () => void publish());
  testButton.addEventListener('click', () => {
    testButton.disabled = true;
    void check(true).finally(() => (testButton.disabled = false));
  });
  // Ctrl/Cmd-S anywhere on the page saves too (the editor's own key binding covers it while typing).
  const onKey = (event: KeyboardEvent): void => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.key.toLowerCase() !== 's' || view?.hasFocus) return;
    event.preventDefault();
    void publish();
  };
  window.addEventListener('keydown', onKey);

  const loadError = fileError(file);
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
    loadError
      ? h('p', { class: 'error-box', attrs: { role: 'alert' } }, `The published file did not load: ${loadError}`)
      : null,
    host,
  );

  view = createEditor({
    parent: host,
    content: startText,
    completion: options.completion,
    label: `Contents of ${file.path}`,
    onSave: () => void publish(),
    onChange: (content) => {
      renderState();
      clearTestSummary(); // the badge belongs to the text it ran on
      options.onContent(content);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void saveDraft(), AUTOSAVE_MS);
    },
  });
  renderState();
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
  void check(false); // the open file's or draft's diagnostics at once, not after the next keystroke
  revealRule(view, new URLSearchParams(location.search).get('rule'));

  return {
    element,
    isDirty: () => text() !== storedText,
    focus: () => view?.focus(),
    text,
    version: () => (text() !== storedText ? 'unsaved' : text() !== publishedText ? 'draft' : 'published'),
    stop() {
      window.clearTimeout(timer);
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
