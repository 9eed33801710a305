import type { PlannedNotification, RunTrigger, Trace } from '../../engine/index.js';
import type { RunSideEffects, SendOutcome } from '../intents/side-effects.js';
import type { Notifier } from './notifier.js';
import { errorMessage } from '../../error-message.js';

const NOT_SENT =
  "not sent: the rule wrote no change (a notify sends when its rule's changes are written, or for a newly added document)";

/**
 * Decides each `notify` action of the traces after the write, and sends in real runs. A notify is not a
 * document write, so it fires only when its rule's other changes were written or the rule matched on `added`:
 * otherwise every echo and every re-run of an already-done document would send the message again.
 */
export async function settleNotifications(
  traces: Trace[],
  notifications: Record<string, PlannedNotification[]>,
  run: { trigger: RunTrigger; dryRun: boolean; notifier: Notifier | undefined; effects?: RunSideEffects },
): Promise<Trace[]> {
  /** Without the intent store (tests of this step alone): sent directly, once, without a key. */
  const sendDirectly = async (target: string, title: string, message: string): Promise<SendOutcome> => {
    try {
      if (!run.notifier) throw new Error('notifications are not set up in this service');
      await run.notifier.send(target, { title, message });
      return { status: 'sent', key: '' };
    } catch (err) {
      return { status: 'failed', error: errorMessage(err) };
    }
  };
  const out: Trace[] = [];
  for (const trace of traces) {
    const planned = notifications[trace.rule_id] ?? [];
    if (planned.length === 0 || run.dryRun) {
      out.push(
        planned.length === 0
          ? trace
          : {
              ...trace,
              actions: trace.actions.map((a) =>
                a.action === 'notify' && a.status === 'planned' ? { ...a, detail: `would send ${a.detail ?? ''}` } : a,
              ),
            },
      );
      continue;
    }
    const fire =
      trace.status === 'matched' &&
      (run.trigger === 'added' || trace.actions.some((a) => a.action !== 'notify' && a.status === 'applied'));
    let firstError: string | null = null;
    const actions = [];
    for (const action of trace.actions) {
      const message = action.action === 'notify' ? planned.find((n) => n.path === action.path) : undefined;
      if (!message) {
        actions.push(action);
        continue;
      }
      if (!fire) {
        await run.effects?.drop(trace.rule_id, message).catch(() => undefined);
        actions.push({ ...action, status: 'skipped' as const, detail: `${action.detail ?? ''}; ${NOT_SENT}` });
        continue;
      }
      const sent = run.effects
        ? await run.effects
            .send(trace.rule_id, message)
            .catch((err: unknown): SendOutcome => ({ status: 'failed', error: errorMessage(err) }))
        : await sendDirectly(message.target, message.title, message.message);
      if (sent.status === 'sent')
        actions.push({ ...action, status: 'applied' as const, detail: `sent ${action.detail ?? ''}` });
      else if (sent.status === 'already')
        actions.push({
          ...action,
          status: 'skipped' as const,
          detail: `${action.detail ?? ''}; not sent: ${sent.detail}`,
        });
      // Not failed (yet): the retrier sends it when the target is back, and the log says how it ended.
      else if (sent.status === 'pending')
        actions.push({ ...action, status: 'planned' as const, detail: `${action.detail ?? ''}; ${sent.detail}` });
      else {
        firstError ??= `notify failed: ${sent.error}`;
        actions.push({ ...action, status: 'failed' as const, error: sent.error });
      }
    }
    out.push(
      firstError ? { ...trace, actions, status: 'error', error: trace.error ?? firstError } : { ...trace, actions },
    );
  }
  return out;
}
