// One job on a page of its own (/jobs/N): the whole width for its report, an address to share, and the jobs
// that apply or undo it one link away.
import { h } from '../dom.js';
import { jobHref, jobPanel } from '../components/job-panel.js';
import { navigate } from '../router.js';

/** The job id in `/jobs/N`, or null when the path names none. */
export function jobIdIn(path: string): number | null {
  const m = /^\/jobs\/(\d{1,15})$/.exec(path);
  return m ? Number(m[1]) : null;
}

export function renderJobPage(main: HTMLElement, eventId: number, takeFocus: boolean): () => void {
  // Apply and Undo start a new job: its page follows, and its next step gets the keyboard there.
  const panel = jobPanel(eventId, {
    ownPage: true,
    takeFocus,
    onNewJob: (next) => navigate(`${jobHref(next)}?follow=1`),
  });
  main.append(
    h(
      'section',
      { class: 'jobs-page job-page' },
      h('p', {}, h('a', { attrs: { href: '/jobs', 'data-nav': true } }, '← All jobs')),
      panel.element,
    ),
  );
  return () => panel.stop();
}
