// Enter at the end of a key that opens a block (`when:`, `- document:`) starts the next line indented under it,
// where its first child goes; everywhere else Enter does what it always does.
import { Prec, type EditorState, type Transaction } from '@codemirror/state';
import { keymap } from '@codemirror/view';

/** A YAML key with nothing after its colon (comments aside), optionally as a list item. */
const OPENS_BLOCK = /^(\s*)(-\s+)?[^\s#'"-][^:#]*:\s*$/;

/** The change Enter makes at the cursor, or null when the default Enter applies. */
export function enterAfterKey(state: EditorState): Transaction | null {
  const sel = state.selection.main;
  if (!sel.empty || state.selection.ranges.length > 1) return null;
  const line = state.doc.lineAt(sel.head);
  if (sel.head !== line.to) return null;
  const m = OPENS_BLOCK.exec(line.text);
  if (!m) return null;
  const indent = ' '.repeat(m[1].length + (m[2]?.length ?? 0) + 2);
  return state.update({
    changes: { from: sel.head, insert: `\n${indent}` },
    selection: { anchor: sel.head + 1 + indent.length },
    scrollIntoView: true,
    userEvent: 'input',
  });
}

/** Higher than basicSetup's Enter; the completion list's Enter (highest) still picks a suggestion. */
export const indentAfterKey = Prec.high(
  keymap.of([
    {
      key: 'Enter',
      run: (view) => {
        const tr = enterAfterKey(view.state);
        if (tr) view.dispatch(tr);
        return tr !== null;
      },
    },
  ]),
);
