// One rule file open in the editor: load (draft first, if any), autosave drafts, publish with Ctrl/Cmd-S,
// discard the draft, delete the file; validation problems go to their line and column.
import type { EditorView } from '@codemirror/view';
import { ApiError, errorMessage, request } from '../api.js';
import { h } from '../dom.js';
import { createEditor, revealPosition, showProblems, type Problem } from '../editor/create-editor.js';
import type { CompletionData } from '../editor/schema-completion.js';
import type { RuleFileContent, RuleFileEntry, SaveResult } from '../types.js';
import { fileError } from './file-tree.js';

const AUTOSAVE_MS = 1200;

export interface EditorPane {
  element: HTMLElement;
  /** True while the text differs from what is stored (published or as a draft). */
  isDirty(): boolean;
  /** The text in the editor now. */
  text(): string;
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
  if (result instanceof ApiError) return [{ message: result.message, line: result.line, column: result.column, severity: 'error' }];
  const out: Problem[] = [];
  const v = result.validation;
  if (v && v.ok === false && v.error) out.push({ message: v.error, line: v.line, column: v.column, severity: 'error' });
  else if (result.error) out.push({ message: result.error, line: result.line, column: result.column, severity: 'error' });
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
    draft = await request<RuleFileContent>(url(file.id), { query: { draft: true } }).then((d) => d.content, () => null);
  }
  let publishedText = published.content;
  let storedText = draft ?? publishedText; // last text the server holds for this file (draft or published)
  let hasDraft = draft !== null && draft !== publishedText;
  let timer: number | undefined;
  let view: EditorView | null = null;

  const state = h('span', { class: 'save-state', attrs: { id: 'save-state', role: 'status', 'aria-live': 'polite' } });
  const problemsBox = h('div', { class: 'problems', attrs: { id: 'problems', 'aria-live': 'polite' } });
  const saveButton = h('button', { class: 'primary', attrs: { type: 'button', id: 'save-button', title: 'Save and publish (Ctrl/Cmd-S)' } }, 'Save');
  const discardButton = h('button', { attrs: { type: 'button', id: 'discard-button' } }, 'Discard draft');
  const deleteButton = h('button', { class: 'danger', attrs: { type: 'button', id: 'delete-button' } }, 'Delete file');
  const host = h('div', { class: 'editor-host' });

  const text = (): string => view?.state.doc.toString() ?? storedText;

  function renderState(extra = ''): void {
    const unsaved = text() !== storedText;
    const unpublished = text() !== publishedText;
    state.textContent = unsaved ? '● Unsaved changes' : unpublished ? '● Draft saved, not published' : 'Published';
    state.dataset.kind = unsaved || unpublished ? 'dirty' : 'clean';
    if (extra) state.textContent += ` · ${extra}`;
    discardButton.hidden = !hasDraft;
    saveButton.textContent = unpublished ? (file.is_vars ? 'Save' : 'Save & publish') : 'Saved';
    saveButton.disabled = !unpublished;
  }

  function renderProblems(problems: Problem[]): void {
    if (view) showProblems(view, problems);
    problemsBox.replaceChildren(
      ...problems.map((p) => {
        const where = p.line ? `Line ${p.line}${p.column ? `, column ${p.column}` : ''}: ` : '';
        const message = p.message.replace(/^line \d+(, column \d+)?:\s*/i, ''); // the server may name the place too
        const item = h('button', { class: `problem ${p.severity}`, attrs: { type: 'button', 'data-line': p.line ?? null } }, `${p.severity === 'error' ? '✗' : '!'} ${where}${message}`);
        item.addEventListener('click', () => view && p.line && revealPosition(view, p.line, p.column));
        return item;
      }),
    );
  }

  async function saveDraft(note = `draft saved ${new Date().toLocaleTimeString()}`): Promise<void> {
    const content = text();
    if (content === storedText) return;
    try {
      const r = await request<SaveResult>(url(file.id), { method: 'PUT', text: content, query: { draft: true } });
      storedText = content;
      const hadDraft = hasDraft;
      hasDraft = content !== publishedText;
      renderProblems(problemsOf(r));
      renderState(note);
      if (hadDraft !== hasDraft) options.onStored(); // the tree marks files with drafts
    } catch (err) {
      renderState(`draft not saved: ${errorMessage(err)}`);
    }
  }

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
    h(
      'div',
      { class: 'editor-toolbar' },
      h('h2', { attrs: { id: 'editor-title' } }, file.path),
      state,
      h('span', { class: 'spacer' }),
      discardButton,
      saveButton,
      deleteButton,
    ),
    draft !== null && hasDraft ? h('p', { class: 'banner small', attrs: { role: 'note' } }, 'You are editing an unpublished draft. Save to publish it, or discard it.') : null,
    loadError ? h('p', { class: 'error-box', attrs: { role: 'alert' } }, `The published file did not load: ${loadError}`) : null,
    host,
    problemsBox,
  );

  view = createEditor({
    parent: host,
    content: storedText,
    completion: options.completion,
    label: `Contents of ${file.path}`,
    onSave: () => void publish(),
    onChange: (content) => {
      renderState();
      options.onContent(content);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void saveDraft(), AUTOSAVE_MS);
    },
  });
  renderState();
  // Show why the published file did not load, at its place, until the next validation says more.
  if (file.error && typeof file.error === 'object' && file.error.line) {
    renderProblems([{ message: file.error.message ?? 'This file did not load.', line: file.error.line, column: file.error.column ?? undefined, severity: 'error' }]);
  }

  return {
    element,
    isDirty: () => text() !== storedText,
    text,
    stop() {
      window.clearTimeout(timer);
      window.removeEventListener('keydown', onKey);
      view?.destroy();
    },
  };
}
