// The top of a run of all rules on one document: which rules matched, and the document's final
// before → after once every rule has run (each field from its first "before" to its last "after").
import { h } from '../dom.js';
import type { FieldChange, Trace } from '../types.js';
import { diffTable } from './trace-view.js';

/** Field → the change the whole run makes, in rule order. */
export function finalChanges(traces: Trace[]): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  for (const trace of traces) {
    for (const [field, change] of Object.entries(trace.changes ?? {})) {
      out[field] = field in out ? { from: out[field].from, to: change.to } : { ...change };
    }
  }
  return out;
}

/** `reveal`: opens that rule's trace below (the rule names in the summary are links to their traces). */
export function runSummary(traces: Trace[], reveal: (ruleId: string) => void): HTMLElement {
  const matched = traces.filter((t) => t.status === 'matched');
  const failed = traces.filter((t) => t.status === 'error' || t.status === 'timeout');
  const changes = finalChanges(traces);
  const ruleLink = (ruleId: string) => {
    const link = h('a', { class: 'rule-jump', attrs: { href: `#trace-${ruleId}` } }, h('code', {}, ruleId));
    link.addEventListener('click', (event) => {
      event.preventDefault(); // a hash change would reach the router as a navigation
      reveal(ruleId);
    });
    return link;
  };
  return h(
    'section',
    { class: 'run-summary', attrs: { 'aria-label': 'Summary of the run' } },
    h('h3', {}, 'Summary'),
    h(
      'p',
      {},
      `${matched.length} of ${traces.length} rule${traces.length === 1 ? '' : 's'} matched`,
      matched.length ? ': ' : '.',
      ...matched.flatMap((t, i) => [i ? ', ' : '', ruleLink(t.rule_id)]),
      failed.length
        ? h(
            'span',
            { class: 'error-text' },
            ` · ${failed.length} failed: `,
            ...failed.flatMap((t, i) => [i ? ', ' : '', ruleLink(t.rule_id)]),
          )
        : null,
      traces.length > matched.length + failed.length
        ? h(
            'span',
            { class: 'muted' },
            ` · the ${traces.length - matched.length - failed.length} others are folded below`,
          )
        : null,
    ),
    Object.keys(changes).length
      ? h('div', {}, h('h4', {}, 'The document after every rule'), diffTable(changes))
      : h('p', { class: 'muted' }, 'Together the rules change nothing on this document.'),
  );
}
