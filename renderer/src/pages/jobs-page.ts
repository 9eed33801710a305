// Recent background jobs and webhook deliveries; running ones are followed live.
import { errorMessage, request } from '../api.js';
import { formatTime, h } from '../dom.js';
import { jobPanel, type JobPanel } from '../components/job-panel.js';
import { scheduledRuns } from '../components/scheduled-runs.js';
import type { JobEvent } from '../types.js';

export function renderJobsPage(main: HTMLElement): () => void {
  const host = h('div', { class: 'jobs-host' });
  const live = h('div', { class: 'jobs-live' });
  let panels: JobPanel[] = [];
  main.append(h('section', { class: 'jobs-page' }, h('h1', {}, 'Jobs'), h('p', { class: 'muted' }, 'Runs of one rule over all documents, their undo, webhook deliveries from the dms, and catch-ups of what changed while the service was not listening.'), scheduledRuns(), live, host));

  function follow(id: number): void {
    const panel = jobPanel(id, follow);
    panels.push(panel);
    live.prepend(panel.element);
  }

  request<{ events: JobEvent[] }>('/api/events')
    .then(({ events }) => {
      for (const e of events.filter((e) => e.status === 'queued' || e.status === 'running')) follow(e.event_id);
      if (events.length === 0) {
        host.replaceChildren(h('p', { class: 'empty-state' }, 'No jobs yet. Start one from the Rules page: pick a rule and "Run this rule on all documents".'));
        return;
      }
      host.replaceChildren(
        h(
          'table',
          { class: 'jobs' },
          h('thead', {}, h('tr', {}, ...['#', 'Kind', 'Rule', 'Mode', 'Status', 'Processed', 'Matched', 'Changed', 'Errors', 'Started', ''].map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
          h(
            'tbody',
            {},
            ...events.map((e) => {
              const open = h('button', { class: 'link', attrs: { type: 'button' } }, 'Details');
              open.addEventListener('click', () => follow(e.event_id));
              const resume = e.kind === 'job' && e.status === 'interrupted' ? h('button', { class: 'link', attrs: { type: 'button', 'data-resume': e.event_id } }, 'Resume') : null;
              resume?.addEventListener('click', () => {
                resume.setAttribute('disabled', '');
                request<{ event_id: number }>(`/api/events/${e.event_id}/resume`, { method: 'POST' })
                  .then((r) => follow(r.event_id))
                  .catch((err: unknown) => resume.replaceWith(h('span', { class: 'error', attrs: { role: 'alert' } }, errorMessage(err))));
              });
              return h(
                'tr',
                { attrs: { 'data-status': e.status } },
                h('td', {}, String(e.event_id)),
                h('td', {}, e.kind),
                h('td', {}, e.rule_id ?? (e.document != null ? `document ${e.document}` : e.catchup ? `changed since ${formatTime(e.catchup.since)}` : 'all')),
                h('td', {}, e.dry_run ? 'dry run' : 'real'),
                h('td', {}, h('span', { class: `badge job-${e.status}` }, e.status)),
                h('td', {}, `${e.processed}${e.total != null ? ` / ${e.total}` : ''}`),
                h('td', {}, String(e.matched)),
                h('td', {}, String(e.changed)),
                h('td', {}, String(e.errors)),
                h('td', {}, formatTime(e.started_at ?? e.created_at)),
                h('td', {}, open, ' ', resume, resume ? ' ' : null, h('a', { attrs: { href: `/traces?event_id=${e.event_id}`, 'data-nav': true } }, 'Traces')),
              );
            }),
          ),
        ),
      );
    })
    .catch((err: unknown) => host.replaceChildren(h('p', { class: 'error-box', attrs: { role: 'alert' } }, errorMessage(err))));

  return () => {
    for (const p of panels) p.stop();
    panels = [];
  };
}
