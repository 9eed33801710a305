import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EditorState } from '@codemirror/state';
import { enterAfterKey } from '../../../renderer/src/editor/indent-after-key.js';

/** The text after Enter at the end of `text`, with the cursor shown as |; null: the default Enter applies. */
function enter(text: string): string | null {
  const tr = enterAfterKey(EditorState.create({ doc: text, selection: { anchor: text.length } }));
  if (!tr) return null;
  const doc = tr.state.doc.toString();
  const at = tr.state.selection.main.head;
  return `${doc.slice(0, at)}|${doc.slice(at)}`;
}

describe('Enter after a key that opens a block', () => {
  it('indents under when:, under a list item key, and ignores values, comments and mid-line', () => {
    assert.equal(enter('rules:\n  - id: a\n    when:'), 'rules:\n  - id: a\n    when:\n      |');
    assert.equal(enter('    tests:\n      - document:'), '    tests:\n      - document:\n          |');
    assert.equal(enter('    when:  '), '    when:  \n      |');
    assert.equal(enter('    title: Telekom'), null);
    assert.equal(enter('# note:'), null);
    assert.equal(enter('      - add_tags: [Steuer]'), null);
  });
});
