// The recent jobs as a table, kept current: `refresh` asks the service again and redraws the rows.
import { errorMessage, request } from '../api.js';
import { formatTime, h } from '../dom.js';
import type { JobEvent } from '../types.js';
import '../styles/narrow.css';
import { eventLinks, jobHref } from './job-panel.js';

const REFRESH_MS = 2000;
const HEADERS = ['#', 'Kind', 'Rule', 'Mode', 'Status', 'Processed', 'Matched', 'Changed', 'Errors', 'Started', ''];

export interface JobsTable {
  element: HTMLElement;
  stop(): void;
}

function row(e: JobEvent, open: (id: number) => void): HTMLElement {
  const details = h('a', { attrs: { href: jobHref(e.event_id), 'data-nav': true } }, 'Details');
  const resume =
    e.kind === 'job' && e.status === 'interrupted'
      ? h('button', { class: 'link', attrs: { type: 'button', 'data-resume': e.event_id } }, 'Resume')
      : null;
  resume?.addEventListener('click', () => {
    resume.setAttribute('disabled', '');
    request<{ event_id: number }>(`/api/events/${e.event_id}/resume`, { method: 'POST' })
      .then((r) => open(r.event_id))
      .catch((err: unknown) =>
        resume.replaceWith(h('span', { class: 'error', attrs: { role: 'alert' } }, errorMessage(err))),
      );
  });
  const cells = [
    h('span', { class: 'job-id' }, String(e.event_id)),
    e.kind,
    e.rule_id ??
      (e.document != null
        ? `document ${e.document}`
        : e.catchup
          ? `changed since ${formatTime(e.catchup.since)}`
          : 'all'),
    e.dry_run ? 'dry run' : 'real',
    h(
      'span',
      {},
      h('span', { class: `badge job-${e.status}` }, e.status),
      h('span', { class: 'job-links' }, ...eventLinks(e)),
    ),
    `${e.processed}${e.total != null ? ` / ${e.total}` : ''}`,
    String(e.matched),
    String(e.changed),
    String(e.errors),
    formatTime(e.started_at ?? e.created_at),
    h(
      'span',
      { class: 'job-actions' },
      details,
      ' ',
      resume,
      resume ? ' ' : null,
      h('a', { attrs: { href: `/traces?event_id=${e.event_id}`, 'data-nav': true } }, 'Traces'),
    ),
  ];
  // data-label: on a narrow screen each row becomes a card whose cells name themselves (jobs-table.css).
  return h(
    'tr',
    { attrs: { 'data-status': e.status, 'data-event-id': e.event_id } },
    ...cells.map((cell, i) => h('td', { attrs: { 'data-label': HEADERS[i] || null } }, cell)),
  );
}

/** The jobs list, live: new jobs and changed states appear without a reload. `onLoad` sees each fresh list. */
export function jobsTable(open: (id: number) => void, onLoad?: (events: JobEvent[]) => void): JobsTable {
  const element = h('div', { class: 'jobs-host', attrs: { 'aria-live': 'polite' } });
  let timer: number | undefined;
  let stopped = false;
  let last = '';

  async function refresh(): Promise<void> {
    try {
      const { events } = await request<{ events: JobEvent[] }>('/api/events');
      onLoad?.(events);
      const seen = JSON.stringify(events);
      if (seen !== last) {
        last = seen;
        element.replaceChildren(
          events.length === 0
            ? h(
                'p',
                { class: 'empty-state' },
                'No jobs yet. Start one from the Rules page: pick a rule and "Dry-run this rule on all documents".',
              )
            : h(
                'table',
                { class: 'jobs' },
                h('thead', {}, h('tr', {}, ...HEADERS.map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
                h('tbody', {}, ...events.map((e) => row(e, open))),
              ),
        );
      }
    } catch (err) {
      last = '';
      element.replaceChildren(
        h('p', { class: 'error-box', attrs: { role: 'alert', 'data-load-failed': true } }, errorMessage(err)),
      );
    }
    if (!stopped) timer = window.setTimeout(() => void refresh(), REFRESH_MS);
  }

  void refresh();
  return {
    element,
    stop() {
      stopped = true;
      window.clearTimeout(timer);
    },
  };
}
