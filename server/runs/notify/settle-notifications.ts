import type { PlannedNotification, RunTrigger, Trace } from '../../engine/index.js';
import { errorMessage } from '../../errors.js';
import type { Notifier } from './notifier.js';

const NOT_SENT = "not sent: the rule wrote no change (a notify sends when its rule's changes are written, or for a newly added document)";

/**
 * Decides each `notify` action of the traces after the write, and sends in real runs. A notify is not a
 * document write, so it fires only when its rule's other changes were written or the rule matched on `added`:
 * otherwise every echo and every re-run of an already-done document would send the message again.
 */
export async function settleNotifications(
  traces: Trace[],
  notifications: Record<string, PlannedNotification[]>,
  run: { trigger: RunTrigger; dryRun: boolean; notifier: Notifier | undefined },
): Promise<Trace[]> {
  const out: Trace[] = [];
  for (const trace of traces) {
    const planned = notifications[trace.rule_id] ?? [];
    if (planned.length === 0 || run.dryRun) {
      out.push(
        planned.length === 0
          ? trace
          : { ...trace, actions: trace.actions.map((a) => (a.action === 'notify' && a.status === 'planned' ? { ...a, detail: `would send ${a.detail ?? ''}` } : a)) },
      );
      continue;
    }
    const fire = trace.status === 'matched' && (run.trigger === 'added' || trace.actions.some((a) => a.action !== 'notify' && a.status === 'applied'));
    let firstError: string | null = null;
    const actions = [];
    for (const action of trace.actions) {
      const message = action.action === 'notify' ? planned.find((n) => n.path === action.path) : undefined;
      if (!message) {
        actions.push(action);
        continue;
      }
      if (!fire) {
        actions.push({ ...action, status: 'skipped' as const, detail: `${action.detail ?? ''}; ${NOT_SENT}` });
        continue;
      }
      try {
        if (!run.notifier) throw new Error('notifications are not set up in this service');
        await run.notifier.send(message.target, { title: message.title, message: message.message });
        actions.push({ ...action, status: 'applied' as const, detail: `sent ${action.detail ?? ''}` });
      } catch (err) {
        firstError ??= `notify failed: ${errorMessage(err)}`;
        actions.push({ ...action, status: 'failed' as const, error: errorMessage(err) });
      }
    }
    out.push(firstError ? { ...trace, actions, status: 'error', error: trace.error ?? firstError } : { ...trace, actions });
  }
  return out;
}
