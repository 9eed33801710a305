// The CodeMirror 6 YAML editor: line numbers, folding, search, bracket matching, history (basicSetup),
// schema completion, diagnostics placed by the server's line/column, and Ctrl/Cmd-S to save.
import { indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import type { Problem } from './problems.js';
import { indentAfterKey } from './indent-after-key.js';
import { schemaCompletion, type CompletionData } from './schema-completion.js';

export interface EditorOptions {
  parent: HTMLElement;
  content: string;
  /** Rule files complete from the schema; `_vars.yml` has none. */
  completion: (() => CompletionData) | null;
  onChange: (content: string) => void;
  onSave: () => void;
  label: string;
}

export type { Problem } from './problems.js';

export function createEditor(options: EditorOptions): EditorView {
  const extensions: Extension[] = [
    basicSetup,
    yaml(),
    lintGutter(),
    EditorState.tabSize.of(2),
    indentAfterKey,
    EditorView.lineWrapping, // long regexes and templates stay visible in a narrow window
    // Before basicSetup's keymaps win: Mod-s would otherwise open the browser's "save page".
    keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (options.onSave(), true) }, indentWithTab]),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onChange(update.state.doc.toString());
    }),
    EditorView.contentAttributes.of({ 'aria-label': options.label }),
  ];
  if (options.completion) {
    // One source object for the editor's life: CodeMirror drops pending results when the source changes identity.
    const data = [{ autocomplete: schemaCompletion(options.completion) }];
    extensions.push(EditorState.languageData.of(() => data));
  }
  // CodeMirror styles itself at runtime. In a document it would add <style> elements, which the strict CSP
  // (style-src 'self', no nonce) blocks; in a shadow root it uses constructed style sheets, which CSP allows.
  const shadow = options.parent.attachShadow({ mode: 'open' });
  const mount = document.createElement('div');
  mount.className = 'cm-mount';
  shadow.append(mount);
  return new EditorView({
    parent: mount,
    state: EditorState.create({ doc: options.content, extensions: [extensions, editorTheme] }),
  });
}

// Our look inside the shadow root (app.css does not reach in there).
const editorTheme = EditorView.theme({
  '&': { height: 'var(--editor-height, 60vh)', fontSize: '13px', backgroundColor: '#fff' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
    lineHeight: '1.5',
  },
  '.cm-gutters': { backgroundColor: '#f6f7f5', borderRight: '1px solid #d8ddd9', color: '#5d6963' },
  '.cm-activeLine': { backgroundColor: '#f3f7f4' },
  '.cm-activeLineGutter': { backgroundColor: '#e4efe8' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: '#2f6f4f', color: '#fff' },
  '.cm-tooltip': { fontFamily: 'system-ui, sans-serif' },
  '.cm-diagnostic': { fontFamily: 'system-ui, sans-serif', maxWidth: '36rem' },
});

/**
 * Replaces the editor's diagnostics with these problems, each underlined over the range the server gave (the key,
 * the name inside a template's braces); without an end, the word at the start.
 */
export function showProblems(view: EditorView, problems: Problem[]): void {
  const doc = view.state.doc;
  const offset = (line: number, column: number) => {
    const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(l.from + Math.max(column - 1, 0), l.to);
  };
  const diagnostics: Diagnostic[] = problems.map((p) => {
    const lineNo = Math.min(Math.max(p.line ?? 1, 1), doc.lines);
    const from = offset(lineNo, p.column ?? 1);
    let to: number;
    if (p.line && p.endLine !== undefined && p.endColumn !== undefined) {
      to = Math.max(offset(p.endLine, p.endColumn), from);
    } else {
      const line = doc.line(lineNo);
      const word = /^\S+/.exec(doc.sliceString(from, line.to))?.[0].length ?? 0;
      to = word > 0 ? from + word : line.to > from ? line.to : from;
    }
    return {
      from,
      to,
      severity: p.severity,
      message: p.message,
      source: p.line ? `line ${lineNo}, column ${p.column ?? 1}` : undefined,
    };
  });
  view.dispatch(setDiagnostics(view.state, diagnostics));
}

/** Puts the cursor at a line and column and scrolls it into view. */
export function revealPosition(view: EditorView, line: number, column = 1): void {
  const l = view.state.doc.line(Math.min(Math.max(line, 1), view.state.doc.lines));
  const pos = Math.min(l.from + column - 1, l.to);
  view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
  view.focus();
}

export function replaceContent(view: EditorView, content: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: content } });
}
