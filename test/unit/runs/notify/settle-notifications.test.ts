import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionTrace, PlannedNotification, RunTrigger } from '../../../../server/engine/engine.js';
import type { Notifier, NotifyMessage } from '../../../../server/runs/notify/notifier.js';
import { settleNotifications } from '../../../../server/runs/notify/settle-notifications.js';
import { makeTrace } from '../../../helpers/trace-factory.js';

const NOTIFY: ActionTrace = { path: 'actions/1', action: 'notify', status: 'planned', detail: 'to phone: "hi"' };
const planned: Record<string, PlannedNotification[]> = {
  r: [{ path: 'actions/1', target: 'phone', when: 'on_change', title: '', message: 'hi' }],
};

/** Records what it was asked to send (the real sending is covered by test/api/notify.test.ts). */
function recorder(): Notifier & { sent: Array<[string, NotifyMessage]> } {
  const sent: Array<[string, NotifyMessage]> = [];
  return {
    sent,
    kinds: () => ({ phone: 'http' }),
    attachmentLimit: () => null,
    send: async (target, msg) => void sent.push([target, msg]),
  };
}

async function settle(tagStatus: ActionTrace['status'], trigger: RunTrigger) {
  const notifier = recorder();
  const trace = makeTrace({
    rule_id: 'r',
    status: 'matched',
    actions: [{ path: 'actions/0', action: 'add_tags', status: tagStatus }, NOTIFY],
  });
  const [out] = await settleNotifications([trace], planned, { trigger, dryRun: false, notifier });
  return { action: out.actions[1], sent: notifier.sent };
}

test("sends when the rule's change was written", async () => {
  const { action, sent } = await settle('applied', 'updated');
  assert.equal(action.status, 'applied');
  assert.deepEqual(sent, [['phone', { title: '', message: 'hi' }]]);
});

test('does not send when the rule changed nothing (an echo or a re-run)', async () => {
  for (const trigger of ['updated', 'manual', 'job'] as const) {
    const { action, sent } = await settle('unchanged', trigger);
    assert.equal(action.status, 'skipped', trigger);
    assert.equal(sent.length, 0, trigger);
  }
});

test('sends for a newly added document even when the rule changed nothing', async () => {
  const { action, sent } = await settle('unchanged', 'added');
  assert.equal(action.status, 'applied');
  assert.equal(sent.length, 1);
});

test('a rule whose write failed does not send', async () => {
  const notifier = recorder();
  const trace = makeTrace({
    rule_id: 'r',
    status: 'error',
    actions: [{ path: 'actions/0', action: 'add_tags', status: 'failed' }, NOTIFY],
  });
  const [out] = await settleNotifications([trace], planned, { trigger: 'added', dryRun: false, notifier });
  assert.equal(out.actions[1].status, 'skipped');
  assert.equal(notifier.sent.length, 0);
});
