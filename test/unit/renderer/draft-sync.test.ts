import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../renderer/src/api.js';
import { problemsOf, type CheckResult } from '../../../renderer/src/editor/problems.js';
import { at, draftAnswer, harness } from './draft-sync-harness.js';

describe('draft sync (the editor without its DOM)', () => {
  it('autosaves an edit as a draft after a pause, then counts it as a draft, not published', async () => {
    const h = harness({});
    assert.equal(h.sync.status().label, 'Published');
    h.type('rules:\n  - id: a\n');
    assert.equal(h.sync.version(), 'unsaved');
    assert.deepEqual(h.timers.delays(), [1200]);
    await h.timers.fire();
    assert.deepEqual(h.calls, ['draft:rules:\n  - id: a\n']);
    assert.equal(h.sync.version(), 'draft');
    const status = h.sync.status();
    assert.equal(status.label, '● Draft saved, not published');
    assert.equal(status.canDiscard, true);
    assert.equal(status.saveLabel, 'Save & publish');
    assert.equal(h.shown.stored, 1, 'the file list learns the file has a draft');
  });

  it('keeps the text after a failed autosave and tries again later', async () => {
    let fail = true;
    const h = harness({
      saveDraft: async () => {
        if (fail) throw new ApiError('The dms-rules service cannot be reached. Is it running?', 0);
        return { ok: true };
      },
    });
    h.type('changed');
    await h.timers.fire();
    assert.match(h.shown.notes.at(-1)!, /draft not saved: .*cannot be reached.* · retrying/);
    assert.deepEqual(h.timers.delays(), [5000]);
    fail = false;
    await h.timers.fire();
    assert.equal(h.sync.version(), 'draft');
  });

  it('shows every problem of a refused publish with its range, and keeps the work as a draft', async () => {
    const problems = [
      { message: 'the dms has no custom field "X".', line: 3, column: 13, end_line: 3, end_column: 28 },
      { message: 'template names "doc.titel"', line: 5, column: 27, end_line: 5, end_column: 36 },
    ];
    const drafts: string[] = [];
    const h = harness({
      publish: async () => {
        throw new ApiError('line 3, column 13: … (and 1 more problem in this file)', 422, 3, 13, undefined, problems);
      },
      // As the server answers a draft: saved, with the same validation.
      saveDraft: async (text) => (drafts.push(text), { ok: true, validation: { ok: false, error: 'x', problems } }),
    });
    h.type('broken');
    await h.sync.publish();
    assert.deepEqual(
      h.shown.problems.map((p) => [p.line, p.column, p.endLine, p.endColumn, p.severity]),
      [
        [3, 13, 3, 28, 'error'],
        [5, 27, 5, 36, 'error'],
      ],
    );
    assert.deepEqual(drafts, ['broken'], 'the refused text is kept as a draft');
    assert.match(h.shown.notes.at(-1)!, /not published: fix the error first \(kept as a draft\)/);
  });

  it('clears the test badge on an edit and runs the tests again after a publish', async () => {
    let checks = 0;
    const h = harness({
      check: async (): Promise<CheckResult> => {
        checks++;
        return {
          validation: { ok: true },
          tests: [{ rule_id: 'a', name: 't', ok: true, message: 'ok', line: 4, column: 9 }],
        };
      },
    });
    await h.sync.check(true);
    assert.deepEqual(h.shown.badge, { text: '1 test: 1 passed', kind: 'ok' });
    h.type('edited');
    assert.equal(h.shown.badge, null, 'the badge belongs to the text it ran on');
    await h.sync.publish();
    assert.equal(checks, 2);
    assert.deepEqual(h.shown.badge, { text: '1 test: 1 passed', kind: 'ok' });
  });

  it('says to fix the YAML first, with its line, instead of running tests on text that does not parse', async () => {
    const h = harness({
      check: async () => ({
        validation: {
          ok: false,
          error: 'line 2, column 3: YAML syntax error: x',
          problems: [{ message: 'YAML syntax error: x', line: 2, column: 3, end_line: 2, end_column: 4 }],
        },
        tests: [],
      }),
    });
    await h.sync.check(true);
    assert.deepEqual(h.shown.badge, { text: 'Tests not run: fix the YAML first (line 2)', kind: 'error' });
  });

  it('an autosave asked while a publish is on its way waits for its answer, then has nothing to save', async () => {
    let answer!: () => void;
    const h = harness({
      publish: (t) => new Promise((resolve) => (h.calls.push(`publish:${t}`), (answer = () => resolve({ ok: true })))),
    });
    h.type('rules: [published]\n');
    const publishing = h.sync.publish();
    const autosave = h.sync.saveDraft();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(h.calls, ['publish:rules: [published]\n']);
    answer();
    await Promise.all([publishing, autosave]);
    assert.deepEqual(h.calls, ['publish:rules: [published]\n'], 'no draft of the published text is sent');
    assert.equal(h.sync.version(), 'published');
    assert.equal(h.sync.status().canDiscard, false);
  });

  it('a publish asked while an autosave is on its way is sent after the autosave has its answer', async () => {
    let answer!: () => void;
    const h = harness({
      saveDraft: (t) => new Promise((resolve) => (h.calls.push(`draft:${t}`), (answer = () => resolve({ ok: true })))),
    });
    h.type('first\n');
    await h.timers.fire();
    h.type('second\n');
    const publishing = h.sync.publish();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(h.calls, ['draft:first\n'], 'the publish waits for the draft save');
    answer();
    await publishing;
    assert.deepEqual(h.calls, ['draft:first\n', 'publish:second\n']);
    assert.equal(h.sync.version(), 'published');
    assert.equal(h.sync.status().canDiscard, false);
  });

  it("a word asked while a refused publish keeps its draft comes after that draft's answer", async () => {
    let answer!: () => void;
    const h = harness({
      publish: async () => {
        throw new ApiError('line 1, column 1: the dms has no tag "urgent"', 422, 1, 1);
      },
      saveDraft: (t) => new Promise((resolve) => (h.calls.push(`draft:${t}`), (answer = () => resolve({ ok: true })))),
    });
    h.type('broken');
    const publishing = h.sync.publish();
    await new Promise((resolve) => setImmediate(resolve));
    let said: string | undefined;
    const after = h.sync.afterWrites().then(() => (said = h.shown.notes.at(-1)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(said, undefined, 'the draft save has no answer yet');
    answer();
    await publishing;
    await after;
    assert.match(String(said), /kept as a draft/, "the draft's word was said first");
  });

  it('discarding the draft puts the published text back', async () => {
    const h = harness({}, { published: 'published\n', draft: 'draft\n' });
    assert.equal(h.sync.status().showDraftBanner, true);
    await h.sync.discard();
    assert.equal(h.text(), 'published\n');
    assert.equal(h.sync.version(), 'published');
    assert.equal(h.sync.status().showDraftBanner, false);
  });

  it('reads a draft answer: every validation problem, then the warnings', () => {
    const result = draftAnswer([at('a', 1, 1, 2), at('b', 4, 7, 9)], ['the dms could not be reached']);
    assert.deepEqual(
      problemsOf(result).map((p) => `${p.severity}:${p.message}`),
      ['error:a', 'error:b', 'warning:the dms could not be reached'],
    );
  });
});

describe('the problems list in file order', () => {
  it('places a positioned warning at its line among the errors, and file-wide notes last', () => {
    const result = draftAnswer(
      [at('unknown key "whenn"', 3, 5, 10), at('the dms has no tag "Stuer"', 12, 20, 25)],
      [
        'the dms could not be reached',
        'line 7, column 24: the test name stops before "#1", which YAML reads as a comment',
      ],
    );
    assert.deepEqual(
      problemsOf(result).map((p) => [p.severity, p.line ?? null, p.message]),
      [
        ['error', 3, 'unknown key "whenn"'],
        ['warning', 7, 'the test name stops before "#1", which YAML reads as a comment'],
        ['error', 12, 'the dms has no tag "Stuer"'],
        ['warning', null, 'the dms could not be reached'],
      ],
    );
  });
});
