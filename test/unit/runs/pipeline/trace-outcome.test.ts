import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trace } from '../../../../server/engine/model.js';
import { withFieldOutcome } from '../../../../server/runs/pipeline/trace-outcome.js';
import { makeTrace } from '../../../helpers/trace-factory.js';

const trace = (status: Trace['status'] = 'matched'): Trace =>
  makeTrace({
    dry_run: false,
    status,
    actions: [
      { path: 'actions/0', action: 'set_title', status: 'planned' },
      { path: 'actions/1', action: 'add_tags', status: 'planned' },
      { path: 'actions/2', action: 'add_note', status: 'unchanged' },
    ],
  });

describe('action statuses from what happened to each field', () => {
  it('keeps planned in a dry run and marks fields another rule already settled as unchanged', () => {
    const out = withFieldOutcome(trace(), { dryRun: true, changed: ['title'], written: [], failures: {} });
    assert.deepEqual(
      out.actions.map((a) => a.status),
      ['planned', 'unchanged', 'unchanged'],
    );
    assert.equal(out.status, 'matched');
  });

  it('marks written fields applied in real mode', () => {
    const out = withFieldOutcome(trace(), {
      dryRun: false,
      changed: ['title', 'tags'],
      written: ['title', 'tags'],
      failures: {},
    });
    assert.deepEqual(
      out.actions.map((a) => a.status),
      ['applied', 'applied', 'unchanged'],
    );
  });

  it('turns a failed field into a failed action and an error trace that names it', () => {
    const out = withFieldOutcome(trace(), {
      dryRun: false,
      changed: ['title', 'tags'],
      written: ['title'],
      failures: { tags: 'Tag "x" does not exist in the dms.' },
    });
    assert.deepEqual(
      out.actions.map((a) => a.status),
      ['applied', 'failed', 'unchanged'],
    );
    assert.equal(out.actions[1].error, 'Tag "x" does not exist in the dms.');
    assert.equal(out.status, 'error');
    assert.equal(out.error, 'add_tags failed: Tag "x" does not exist in the dms.');
  });

  it('skips an action whose field a person changed between the read and the write, and says why', () => {
    const why = 'title was changed in the dms after the rules read the document; left as it is now.';
    const out = withFieldOutcome(trace(), {
      dryRun: false,
      changed: ['title', 'tags'],
      written: ['tags'],
      failures: {},
      superseded: { title: why },
    });
    assert.deepEqual(
      out.actions.map((a) => a.status),
      ['skipped', 'applied', 'unchanged'],
    );
    assert.equal(out.actions[0].detail, why);
    assert.equal(out.status, 'matched');
  });

  it('leaves traces of rules that did not match alone', () => {
    const t = trace('not_matched');
    assert.equal(withFieldOutcome(t, { dryRun: false, changed: ['title'], written: ['title'], failures: {} }), t);
  });
});
