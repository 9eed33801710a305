// One trace, readable: what each condition saw and whether it held, extracted values, the changes as a
// before/after diff, each action's outcome, and the error if there was one.
import { formatTime, h } from '../dom.js';
import type { FieldChange, Trace } from '../types.js';
import { formatValue, readableTimes } from '../value-format.js';
import { documentButton } from './document-panel.js';

/** What a trace can link to: the document in the dms (when its URL is known) and its title. */
export interface TraceLinks {
  dmsUrl?: string | null;
  titles?: Record<number, string>;
}

/** The document's page in Paperless. */
export function dmsDocumentUrl(dmsUrl: string, id: number): string {
  return `${dmsUrl.replace(/\/+$/, '')}/documents/${id}/details`;
}

/** The rule's line in the editor: the file id is the base64url of its path, as the server makes it. */
export function ruleEditorHref(file: string, ruleId: string): string {
  const bytes = new TextEncoder().encode(file);
  const id = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  return `/rules/${encodeURIComponent(id)}?rule=${encodeURIComponent(ruleId)}`;
}

/** The document by title, opening the document panel with this trace's changes; a small link to its dms page. */
function documentLabel(trace: Trace, links: TraceLinks): HTMLElement {
  const id = trace.document;
  const button = documentButton(id, links.titles?.[id], { changes: trace.changes, dryRun: trace.dry_run });
  const dms = links.dmsUrl
    ? h(
        'a',
        {
          class: 'dms-doc',
          attrs: {
            href: dmsDocumentUrl(links.dmsUrl, id),
            target: '_blank',
            rel: 'noopener',
            title: 'Open in the dms',
            'aria-label': `Open document ${id} in the dms`,
          },
        },
        '↗',
      )
    : null;
  return h('span', { class: 'doc' }, button, dms);
}

/** The job an undo trace reverts (undo traces carry it as `reverts_event`), or null for a rule's trace. */
export function revertedJob(trace: Trace): number | null {
  const target = trace.extracted?.reverts_event;
  return typeof target === 'number' ? target : null;
}

const UNDO_LABEL: Record<string, string> = {
  matched: 'restored',
  skipped: 'left as is',
  error: 'error',
  not_matched: 'left as is',
  timeout: 'timed out',
};

/** "undo of job #3: tags back to Rechnung; Betrag back to EUR 84.37", or what it left alone. */
function undoLine(trace: Trace, job: number): string {
  const restored = Object.entries(trace.changes ?? {}).map(([field, c]) =>
    field.startsWith('custom_fields.') && c.to === null && c.empty !== 'to'
      ? `${field} taken off`
      : `${field} back to ${formatValue(c.to)}`,
  );
  const verb = trace.dry_run ? 'would set' : 'set';
  if (restored.length) return `undo of job #${job}: ${verb} ${restored.join('; ')}`;
  return `undo of job #${job}: nothing restored${trace.conditions.some((c) => !c.result) ? ' (changed by someone since)' : ''}`;
}

const STATUS_LABEL: Record<string, string> = {
  matched: 'matched',
  not_matched: 'not matched',
  error: 'error',
  skipped: 'skipped',
  timeout: 'timed out',
};

function conditions(trace: Trace): HTMLElement {
  if (trace.conditions.length === 0)
    return h('p', { class: 'muted' }, 'No conditions: the rule applies to every document.');
  return h(
    'ul',
    { class: 'conditions' },
    ...trace.conditions.map((c) => {
      const depth = Math.max(c.path.split('/').length - 2, 0);
      const li = h(
        'li',
        { class: c.result ? 'pass' : 'fail', attrs: { 'data-depth': Math.min(depth, 6) } },
        h(
          'span',
          { class: 'mark', attrs: { 'aria-label': c.result ? 'holds' : 'does not hold' } },
          c.result ? '✓' : '✗',
        ),
        h('span', { class: 'desc' }, c.description, c.error ? h('span', { class: 'error-text' }, ` ${c.error}`) : null),
        // A regex hit shows the text around it; other conditions what the field held (unless the description says it).
        c.operator === 'matches' && c.result && typeof c.actual === 'string'
          ? h('span', { class: 'saw' }, 'found in ', h('q', { class: 'context' }, c.actual))
          : c.actual !== undefined && c.operator !== 'matches' && !/\bsaw\b/.test(c.description)
            ? h('span', { class: 'saw' }, 'saw ', h('code', {}, formatValue(c.actual)))
            : h('span', { class: 'saw' }),
      );
      return li;
    }),
  );
}

function extracted(trace: Trace): HTMLElement | null {
  const entries = Object.entries(trace.extracted ?? {}).filter(
    ([name]) => !(name === 'reverts_event' && revertedJob(trace) !== null),
  );
  if (entries.length === 0) return null;
  return h(
    'dl',
    { class: 'extracted' },
    ...entries.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, h('code', {}, formatValue(value)))]),
  );
}

/** Before: the old list, removed items struck out. After: the new list, added items marked. */
function listCells(from: unknown[], to: unknown[]): [HTMLElement, HTMLElement] {
  const before = from.map((v) => formatValue(v));
  const after = to.map((v) => formatValue(v));
  // An empty list says so: a blank cell reads as "not shown", not "nobody".
  const cell = (items: HTMLElement[]) =>
    h('td', {}, items.length ? h('span', { class: 'list-diff' }, ...items) : h('span', { class: 'muted' }, 'none'));
  return [
    cell(before.map((v) => (after.includes(v) ? h('span', { class: 'kept' }, v) : h('del', {}, v)))),
    cell(after.map((v) => (before.includes(v) ? h('span', { class: 'kept' }, v) : h('ins', {}, v)))),
  ];
}

function changeRow(field: string, change: FieldChange): HTMLElement {
  const cells =
    Array.isArray(change.from) && Array.isArray(change.to)
      ? listCells(change.from, change.to)
      : [h('td', {}, h('del', {}, formatValue(change.from))), h('td', {}, h('ins', {}, formatValue(change.to)))];
  return h('tr', {}, h('th', { attrs: { scope: 'row' } }, field), ...cells);
}

/** A before/after table of field changes (also used for a job's sample diffs). */
export function diffTable(changes: Record<string, FieldChange>): HTMLElement {
  return h(
    'table',
    { class: 'diff' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { attrs: { scope: 'col' } }, 'Field'),
        h('th', { attrs: { scope: 'col' } }, 'Before'),
        h('th', { attrs: { scope: 'col' } }, 'After'),
      ),
    ),
    h('tbody', {}, ...Object.entries(changes).map(([field, change]) => changeRow(field, change))),
  );
}

function changes(trace: Trace): HTMLElement | null {
  if (Object.keys(trace.changes ?? {}).length === 0) {
    if (trace.status !== 'matched') return null;
    // A rule that only notifies (or runs a webhook) changes no field by design: "already as it wants" would mislead.
    const changesFields = (trace.actions ?? []).some((a) => /^(add|remove|set)_/.test(a.action));
    return h(
      'p',
      { class: 'muted' },
      changesFields || !trace.actions?.length
        ? 'No changes: the document already is as the rule wants it.'
        : 'No field changes: this rule’s actions do not change fields (see Actions).',
    );
  }
  return diffTable(trace.changes);
}

function actions(trace: Trace): HTMLElement | null {
  if (!trace.actions?.length) return null;
  return h(
    'ul',
    { class: 'actions' },
    ...trace.actions.map((a) =>
      h(
        'li',
        { class: `action-${a.status}` },
        h('span', { class: 'badge' }, a.status),
        h('code', {}, a.action),
        a.detail ? h('span', {}, ` ${readableTimes(a.detail)}`) : null,
        a.error ? h('span', { class: 'error-text' }, ` ${a.error}`) : null,
      ),
    ),
  );
}

function section(title: string, body: HTMLElement | null): HTMLElement | null {
  return body ? h('section', { class: 'trace-section' }, h('h4', {}, title), body) : null;
}

/** A collapsible trace; `open` expands it at once (run results), closed in long lists. */
export function traceView(trace: Trace, open = false, links: TraceLinks = {}): HTMLDetailsElement {
  const undoOf = revertedJob(trace);
  const details = h('details', {
    class: `trace status-${trace.status}${undoOf !== null ? ' undo' : ''}`,
    attrs: { open, 'data-trace-id': trace.id, 'data-rule-id': trace.rule_id },
  });
  const label =
    undoOf !== null ? (UNDO_LABEL[trace.status] ?? trace.status) : (STATUS_LABEL[trace.status] ?? trace.status);
  details.append(
    h(
      'summary',
      {},
      h('span', { class: `badge status-${trace.status}` }, label),
      h('span', { class: 'rule' }, trace.rule_id),
      documentLabel(trace, links),
      trace.dry_run ? h('span', { class: 'badge dry' }, 'dry run') : null,
      h(
        'span',
        { class: 'source muted' },
        undoOf !== null
          ? `undo #${trace.event_id ?? '?'}`
          : trace.source + (trace.event_id != null ? ` #${trace.event_id}` : ''),
      ),
      h(
        'time',
        { class: 'muted', attrs: { datetime: trace.at } },
        `${formatTime(trace.at)} · ${Math.round(trace.duration_ms)} ms`,
      ),
      undoOf !== null ? h('span', { class: 'undo-line' }, undoLine(trace, undoOf)) : null,
    ),
  );
  const body = h(
    'div',
    { class: 'trace-body' },
    trace.error ? h('p', { class: 'error-box', attrs: { role: 'alert' } }, trace.error) : null,
    section(undoOf !== null ? 'What the undo checked' : 'Conditions', conditions(trace)),
    section('Extracted values', extracted(trace)),
    section(
      undoOf !== null
        ? trace.dry_run
          ? 'Would restore (dry run)'
          : 'Restored'
        : trace.dry_run
          ? 'Changes (not written: dry run)'
          : 'Changes',
      undoOf !== null && Object.keys(trace.changes ?? {}).length === 0 ? null : changes(trace),
    ),
    section('Actions', actions(trace)),
    trace.file
      ? h(
          'p',
          { class: 'muted small' },
          'Rule file: ',
          h(
            'a',
            { class: 'rule-link', attrs: { href: ruleEditorHref(trace.file, trace.rule_id), 'data-nav': true } },
            `${trace.file} (${trace.rule_id})`,
          ),
        )
      : null,
  );
  details.append(body);
  return details;
}

/** A list of traces with an empty state that says what to do. */
export function traceList(traces: Trace[], empty: string, open = false, links: TraceLinks = {}): HTMLElement {
  if (traces.length === 0) return h('p', { class: 'empty-state' }, empty);
  return h('div', { class: 'trace-list' }, ...traces.map((t) => traceView(t, open, links)));
}

const RANK: Record<string, number> = { matched: 0, error: 1, timeout: 1 };

/**
 * One document's run of many rules: the rules that matched or failed first and open, the rest after them folded,
 * so the few that did something are not buried under every rule that did not. Rule order is kept within each part.
 */
export function runTraceList(traces: Trace[], empty: string, links: TraceLinks = {}): HTMLElement {
  if (traces.length <= 1) return traceList(traces, empty, true, links);
  const rank = (t: Trace) => RANK[t.status] ?? 2;
  const ordered = traces.map((t, i) => ({ t, i })).sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i);
  return h('div', { class: 'trace-list' }, ...ordered.map(({ t }) => traceView(t, rank(t) < 2, links)));
}

/** Opens the trace of `ruleId` in `list`, scrolls to it and gives it the keyboard. */
export function revealTrace(list: HTMLElement, ruleId: string): void {
  const trace = list.querySelector<HTMLDetailsElement>(`details.trace[data-rule-id="${CSS.escape(ruleId)}"]`);
  if (!trace) return;
  trace.open = true;
  const summary = trace.querySelector('summary');
  summary?.scrollIntoView({ block: 'start' });
  summary?.focus();
}
