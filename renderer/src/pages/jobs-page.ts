// Recent background jobs and webhook deliveries, kept current; running ones are followed live.
import { h } from '../dom.js';
import { jobPanel, type JobPanel } from '../components/job-panel.js';
import { jobsTable } from '../components/jobs-table.js';
import { scheduledRuns } from '../components/scheduled-runs.js';

export function renderJobsPage(main: HTMLElement): () => void {
  const live = h('div', { class: 'jobs-live' });
  let panels: JobPanel[] = [];
  const followed = new Set<number>();

  function follow(id: number): void {
    if (followed.has(id)) return;
    followed.add(id);
    const panel = jobPanel(id, { onNewJob: (next) => follow(next) });
    panels.push(panel);
    live.prepend(panel.element);
  }

  // Jobs that run (also ones started elsewhere after this page opened) get a live panel.
  const table = jobsTable(follow, (events) => {
    for (const e of events) if (e.status === 'queued' || e.status === 'running') follow(e.event_id);
  });
  const intro =
    'Runs of one rule over all documents, their undo, webhook deliveries from the dms, and catch-ups of what changed while the service was not listening.';
  main.append(
    h(
      'section',
      { class: 'jobs-page' },
      h('h1', {}, 'Jobs'),
      h('p', { class: 'muted' }, intro),
      scheduledRuns(),
      live,
      table.element,
    ),
  );

  return () => {
    table.stop();
    for (const p of panels) p.stop();
    panels = [];
  };
}
