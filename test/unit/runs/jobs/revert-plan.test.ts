import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyDocument } from '../../../../server/engine/index.js';
import type { RuleDocument, Trace } from '../../../../server/engine/model.js';
import { decideRevert, writtenChanges } from '../../../../server/runs/jobs/revert-plan.js';

function current(over: Partial<RuleDocument>): RuleDocument {
  return { ...emptyDocument(), id: 1, ...over };
}

function trace(document: number, changes: Trace['changes'], over: Partial<Trace> = {}): Trace {
  return {
    id: String(Math.random()),
    at: '',
    duration_ms: 0,
    source: 'job',
    event_id: 1,
    document,
    rule_id: 'r',
    file: 'f.yml',
    dry_run: false,
    status: 'matched',
    conditions: [],
    extracted: {},
    changes,
    actions: [{ path: 'actions/0', action: 'set_title', status: 'applied' }],
    error: null,
    ...over,
  };
}

test('only real, applied traces count, merged per document from the first "from" to the last "to"', () => {
  const traces = [
    // newest first, as the history answers
    trace(1, { title: { from: 'B', to: 'C' } }),
    trace(1, { title: { from: 'A', to: 'B' }, notes: { from: [], to: ['n'] } }),
    trace(2, { title: { from: 'x', to: 'y' } }, { dry_run: true }),
    trace(
      3,
      { title: { from: 'x', to: 'y' } },
      { actions: [{ path: 'actions/0', action: 'set_title', status: 'unchanged' }] },
    ),
  ];
  assert.deepEqual(writtenChanges(traces), [{ document: 1, rule_id: 'r', fields: { title: { from: 'A', to: 'C' } } }]);
});

test('a field still holding what the job wrote is restored; one a person edited since is left alone', () => {
  const written = {
    document: 1,
    rule_id: 'r',
    fields: { title: { from: 'Scan 1', to: 'ACME #1' }, correspondent: { from: null, to: 'ACME' } },
  };
  const untouched = decideRevert(current({ title: 'ACME #1', correspondent: 'acme' }), written);
  assert.deepEqual(untouched.changes, { title: 'Scan 1', correspondent: null });
  const edited = decideRevert(current({ title: 'Renamed by hand', correspondent: 'ACME' }), written);
  assert.deepEqual(edited.changes, { correspondent: null });
  assert.equal(edited.checked.title.restore, false);
  assert.equal(edited.checked.title.actual, 'Renamed by hand');
});

test('tags are undone one by one, keeping tags a person added since', () => {
  const written = {
    document: 1,
    rule_id: 'r',
    fields: { tags: { from: ['inbox', 'scan'], to: ['scan', 'processed'] } },
  };
  const decision = decideRevert(current({ tags: ['scan', 'processed', 'urgent'] }), written);
  assert.deepEqual(decision.changes.tags, ['scan', 'urgent', 'inbox']);
  const alreadyUndone = decideRevert(current({ tags: ['scan', 'inbox'] }), written);
  assert.equal(alreadyUndone.changes.tags, undefined);
});

test('custom fields are compared per field, in either trace shape', () => {
  const mapShape = {
    document: 1,
    rule_id: 'r',
    fields: {
      custom_fields: { from: { Amount: null }, to: { Amount: { amount: 9.5, currency: 'EUR' }, Number: '17' } },
    },
  };
  const decision = decideRevert(
    current({ custom_fields: { Amount: { amount: 9.5, currency: 'EUR' }, Number: '18' } }),
    mapShape,
  );
  assert.deepEqual(decision.changes.custom_fields, { Amount: null });
  const dotted = { document: 1, rule_id: 'r', fields: { 'custom_fields.Number': { from: '1', to: '17' } } };
  assert.deepEqual(decideRevert(current({ custom_fields: { Number: '17' } }), dotted).changes.custom_fields, {
    Number: '1',
  });
});

test('created compares by date only', () => {
  const written = { document: 1, rule_id: 'r', fields: { created: { from: '2024-01-01', to: '2024-03-05' } } };
  assert.deepEqual(decideRevert(current({ created: '2024-03-05' }), written).changes, { created: '2024-01-01' });
});

test('undo detaches a custom field the job attached, instead of leaving it attached and empty', () => {
  const written = writtenChanges([
    trace(
      1,
      { 'custom_fields.Number': { from: null, to: '17' } },
      { actions: [{ path: 'actions/0', action: 'set_custom_fields', status: 'applied' }] },
    ),
  ])[0];
  const decision = decideRevert(current({ custom_fields: { Number: '17', Other: 'x' } }), written);
  assert.deepEqual(decision.changes, { remove_custom_fields: ['Number'] });
  const wasEmpty = {
    document: 1,
    rule_id: 'r',
    fields: { 'custom_fields.Number': { from: null, to: '17', empty: 'from' as const } },
  };
  assert.deepEqual(
    decideRevert(current({ custom_fields: { Number: '17' } }), wasEmpty).changes,
    { custom_fields: { Number: null } },
    'attached and empty before: cleared, still attached',
  );
});

test('undo re-attaches a field the job detached, with its value, and detaches one the job attached empty', () => {
  const detached = { document: 1, rule_id: 'r', fields: { 'custom_fields.Number': { from: '17', to: null } } };
  assert.deepEqual(decideRevert(current({}), detached).changes, { custom_fields: { Number: '17' } });
  assert.deepEqual(
    decideRevert(current({ custom_fields: { Number: '3' } }), detached).changes,
    {},
    'a value a person attached since stays',
  );
  const attachedEmpty = {
    document: 1,
    rule_id: 'r',
    fields: { 'custom_fields.Number': { from: null, to: null, empty: 'to' as const } },
  };
  assert.deepEqual(decideRevert(current({ custom_fields: { Number: null } }), attachedEmpty).changes, {
    remove_custom_fields: ['Number'],
  });
});

test('undo of tags the dms added through the hierarchy restores the tag set as it was', () => {
  const written = {
    document: 1,
    rule_id: 'r',
    fields: { tags: { from: ['Rechnung'], to: ['Rechnung', 'Steuer 2025', 'Steuer'] } },
  };
  assert.deepEqual(decideRevert(current({ tags: ['Rechnung', 'Steuer 2025', 'Steuer'] }), written).changes.tags, [
    'Rechnung',
  ]);
});

test('undo gives the owner back and restores each permission list that still holds what the job wrote', () => {
  const written = {
    document: 1,
    rule_id: 'r',
    fields: {
      owner: { from: 'anna', to: 'ben' },
      'permissions.view.groups': { from: [], to: ['Family'] },
      'permissions.change.users': { from: [], to: ['ben'] },
    },
  };
  const permissions = { view: { users: ['ben'], groups: ['family'] }, change: { users: ['ben', 'carla'], groups: [] } };
  const decision = decideRevert(current({ owner: 'Ben', permissions }), written);
  assert.equal(decision.changes.owner, 'anna');
  // Family still holds what the job wrote (names compare case-insensitively); the change list gained carla since: left alone.
  assert.deepEqual(decision.changes.permissions, {
    view: { users: ['ben'], groups: [] },
    change: { users: ['ben', 'carla'], groups: [] },
  });
  assert.equal(decision.checked['permissions.change.users'].restore, false);
});
