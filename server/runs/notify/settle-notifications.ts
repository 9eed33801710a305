import { notifyFires, type PlannedNotification, type RunTrigger, type Trace } from '../../engine/engine.js';
import type { ActionTrace } from '../../engine/model.js';
import { errorMessage } from '../../error-message.js';
import type { RunSideEffects, SendOutcome } from '../intents/side-effects.js';
import type { Notifier } from './notifier.js';

const NO_CHANGE =
  'not sent: the rule has no change to write (when: on_change sends when its changes are written or the document was just added; when: always or once sends without a change)';
const RULE_FAILED = 'not sent: the rule ended in an error';

/**
 * Why a notify of this trace does not go out, or null when it does (a dry run asks the same question of its
 * `planned` actions as a real run of its `applied` ones, so both say the same). `on_change` (the default) is
 * not a document write: it fires only when its rule's other changes are written or on `added`, else every
 * echo and re-run would send again. `always` and `once` fire whenever the rule matched; `once` is then kept
 * to one message per document by its intent key.
 */
function whyNotSent(trace: Trace, notification: PlannedNotification, trigger: RunTrigger, dryRun: boolean) {
  if (trace.status !== 'matched') return RULE_FAILED;
  const written = dryRun ? 'planned' : 'applied';
  const ruleWrites = trace.actions.some((a) => a.action !== 'notify' && a.status === written);
  return notifyFires(notification.when, trigger, ruleWrites) ? null : NO_CHANGE;
}

const withDetail = (action: ActionTrace, before: string, after = ''): string =>
  `${before}${action.detail ?? ''}${after}`.trim();

/** The trace action for how a send ended (or would end). */
function settledAction(action: ActionTrace, sent: SendOutcome): ActionTrace {
  switch (sent.status) {
    case 'would_send':
      return { ...action, status: 'planned', detail: withDetail(action, 'would send ') };
    case 'sent':
      return { ...action, status: 'applied', detail: withDetail(action, 'sent ') };
    case 'already':
      return { ...action, status: 'skipped', detail: withDetail(action, '', `; not sent: ${sent.detail}`) };
    // Not failed (yet): the retrier sends it when the target is back, and the log says how it ended.
    case 'pending':
      return { ...action, status: 'planned', detail: withDetail(action, '', `; ${sent.detail}`) };
    case 'failed':
      return { ...action, status: 'failed', error: sent.error };
  }
}

/**
 * Decides each `notify` action of the traces after the write, and sends in real runs. Dry runs get the same
 * decision through a dry `effects` (which knows what was already sent), so they predict the real run.
 */
export async function settleNotifications(
  traces: Trace[],
  notifications: Record<string, PlannedNotification[]>,
  run: { trigger: RunTrigger; dryRun: boolean; notifier: Notifier | undefined; effects?: RunSideEffects },
): Promise<Trace[]> {
  /** Without the intent store (tests of this step alone): sent directly, once, without a key. */
  const sendDirectly = async (notification: PlannedNotification): Promise<SendOutcome> => {
    if (run.dryRun) return { status: 'would_send' };
    try {
      if (!run.notifier) throw new Error('notifications are not set up in this service');
      const { title, message, body, headers } = notification;
      await run.notifier.send(notification.target, {
        title,
        message,
        ...(body !== undefined ? { body } : {}),
        ...(headers ? { headers } : {}),
      });
      return { status: 'sent', key: '' };
    } catch (err) {
      return { status: 'failed', error: errorMessage(err) };
    }
  };
  const out: Trace[] = [];
  for (const trace of traces) {
    const planned = notifications[trace.rule_id] ?? [];
    if (planned.length === 0) {
      out.push(trace);
      continue;
    }
    let firstError: string | null = null;
    const actions: ActionTrace[] = [];
    for (const action of trace.actions) {
      const notification = action.action === 'notify' ? planned.find((n) => n.path === action.path) : undefined;
      if (!notification) {
        actions.push(action);
        continue;
      }
      const reason = whyNotSent(trace, notification, run.trigger, run.dryRun);
      if (reason) {
        if (!run.dryRun) await run.effects?.drop(trace.rule_id, notification).catch(() => undefined);
        actions.push({ ...action, status: 'skipped', detail: withDetail(action, '', `; ${reason}`) });
        continue;
      }
      const sent = run.effects
        ? await run.effects
            .send(trace.rule_id, notification)
            .catch((err: unknown): SendOutcome => ({ status: 'failed', error: errorMessage(err) }))
        : await sendDirectly(notification);
      if (sent.status === 'failed') firstError ??= `notify failed: ${sent.error}`;
      actions.push(settledAction(action, sent));
    }
    out.push(
      firstError ? { ...trace, actions, status: 'error', error: trace.error ?? firstError } : { ...trace, actions },
    );
  }
  return out;
}
