import type { Trigger } from './model.js';

const WHAT: Record<Trigger, string> = {
  added: 'documents as they are added',
  updated: 'documents as they are changed',
  manual: 'manual runs of all rules',
};

/**
 * Why a rule did not run for this trigger, and on a manual run how to run it anyway: a dry run of an
 * `on: [added]` rule on an existing document is the usual way to try one, and would otherwise seem to do nothing.
 */
export function triggerSkipReason(on: readonly Trigger[], trigger: Trigger): string {
  const limits = on.map((t) => WHAT[t]).join(' and ');
  const advice =
    trigger === 'manual'
      ? '; to try it on this document, run this rule alone (a run of one rule ignores on:) or add manual to on:'
      : '';
  return `skipped: the rule runs on ${on.join(', ')}, not on ${trigger} — on: [${on.join(', ')}] limits it to ${limits}${advice}`;
}
