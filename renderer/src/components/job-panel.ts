// A background job followed live: progress bar, counts, the dry-run report, and cancel / apply / undo.
import { errorMessage, request } from '../api.js';
import { focusedElement, formatTime, h, say } from '../dom.js';
import { readableTimes } from '../value-format.js';
import { confirmDialog } from './confirm-dialog.js';
import { documentButton } from './document-panel.js';
import { diffTable } from './trace-view.js';
import type { JobEvent, JobReport, RunResult } from '../types.js';

const POLL_MS = 600;
const FINISHED = new Set(['done', 'failed', 'cancelled', 'interrupted']);

export interface JobPanel {
  element: HTMLElement;
  /** Stops polling (the page is going away). */
  stop(): void;
}

function reportView(report: JobReport, dryRun: boolean): HTMLElement {
  return h(
    'div',
    { class: 'job-report' },
    h('p', {}, readableTimes(report.summary)),
    ...(report.samples ?? []).flatMap((sample) => [
      h(
        'h4',
        { class: 'sample-doc' },
        documentButton(sample.document, sample.title || null, { changes: sample.changes, dryRun }),
      ),
      diffTable(sample.changes),
    ]),
  );
}

/** The job's own page. */
export function jobHref(eventId: number): string {
  return `/jobs/${eventId}`;
}

/** "applied as job #N · undone by #M": links to those jobs' pages, separated in the text too (not only by CSS). */
export function eventLinks(j: JobEvent): Array<HTMLElement | string> {
  const link = (text: string, id: number) =>
    h(
      'a',
      { class: 'event-link', attrs: { 'data-link': text, href: jobHref(id), 'data-nav': true } },
      `${text} #${id}`,
    );
  const out: HTMLElement[] = [];
  if (j.applied_as != null) out.push(link('applied as job', j.applied_as));
  if (j.applied_from != null) out.push(link('applies dry run', j.applied_from));
  if (j.undone_by != null) out.push(link('undone by', j.undone_by));
  if (j.reverts != null) out.push(link('undoes job', j.reverts));
  return out.flatMap((el, i) =>
    i ? [h('span', { class: 'sep', attrs: { 'aria-hidden': 'true' } }, ' · '), el] : [el],
  );
}

export interface JobPanelOptions {
  /** Told when apply/undo start a follow-up job. */
  onNewJob?: (eventId: number) => void;
  /**
   * The person started this job here: its title takes the keyboard now, and its next step (Apply, Undo) once it
   * is done, unless the person has moved on to something else meanwhile.
   */
  takeFocus?: boolean;
  /** The control that started the job: while it has the keyboard, the keyboard may still move to the panel. */
  opener?: HTMLElement;
  /** On the job's own page: no link to itself. */
  ownPage?: boolean;
}

/** Follows job `eventId`. */
export function jobPanel(eventId: number, options: JobPanelOptions = {}): JobPanel {
  const { onNewJob } = options;
  const title = h('h3', { attrs: { tabindex: -1 } }, `Job #${eventId}`);
  const progress = h('progress', { attrs: { max: 1, value: 0, 'aria-label': `Progress of job ${eventId}` } });
  const counts = h('p', { class: 'counts', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Starting…');
  const report = h('div');
  const status = h('p', { class: 'status', attrs: { role: 'alert', hidden: true } });
  const cancel = h('button', { attrs: { type: 'button' } }, 'Cancel');
  const apply = h('button', { class: 'primary', attrs: { type: 'button', hidden: true } }, 'Apply for real');
  const undo = h('button', { attrs: { type: 'button', hidden: true } }, 'Undo these changes');
  const links = h('p', { class: 'job-links', attrs: { hidden: true } });
  const traces = h(
    'a',
    { attrs: { href: `/traces?event_id=${eventId}`, 'data-nav': true, hidden: true } },
    'Traces of this job',
  );
  const ownPage = options.ownPage
    ? null
    : h('a', { class: 'job-page-link', attrs: { href: jobHref(eventId), 'data-nav': true } }, 'Open the job page');
  const element = h(
    'section',
    { class: 'job-panel', attrs: { 'data-event-id': eventId, 'aria-label': `Job ${eventId}` } },
    title,
    progress,
    counts,
    h('div', { class: 'buttons' }, cancel, apply, undo),
    links,
    status,
    report,
    h('p', { class: 'job-footer' }, traces, ownPage ? ' ' : null, ownPage),
  );

  let timer: number | undefined;
  let stopped = false;
  let job: JobEvent | null = null;
  /** Still to do: hand the keyboard to the next step once the job is done. */
  let focusWhenDone = options.takeFocus === true;

  /** True while the keyboard is nowhere in particular (a hidden button had it) or in this panel. */
  function focusIsOurs(): boolean {
    const active = focusedElement();
    return !active || active === document.body || active === options.opener || element.contains(active);
  }

  /** Apply after a dry report, Undo after a real run; else the title, so the keyboard is at the outcome. */
  function focusNextStep(): void {
    focusWhenDone = false;
    if (!element.isConnected || !focusIsOurs()) return;
    (!apply.hidden ? apply : !undo.hidden ? undo : title).focus();
  }

  function render(j: JobEvent): void {
    job = j;
    element.dataset.status = j.status;
    const kind =
      j.kind === 'revert'
        ? `Undo of job #${j.reverts ?? '?'}`
        : `${j.dry_run ? 'Dry run' : 'Run'} of ${j.rule_id ?? 'all rules'} on all documents`;
    title.textContent = `Job #${j.event_id}: ${kind}`;
    const total = j.total ?? 0;
    if (total > 0) {
      progress.max = total;
      progress.value = j.processed;
    } else if (FINISHED.has(j.status)) {
      progress.max = 1;
      progress.value = 1;
    } else {
      progress.removeAttribute('value'); // indeterminate until the dms says how many
    }
    counts.textContent =
      `${j.status} · ${j.processed}${j.total != null ? ` of ${j.total}` : ''} ${(j.total ?? j.processed) === 1 ? 'document' : 'documents'} · ${j.matched} matched · ` +
      `${j.changed} ${j.dry_run ? 'would change' : 'changed'} · ${j.errors} errors` +
      (j.finished_at ? ` · finished ${formatTime(j.finished_at)}` : '');
    if (j.error) say(status, readableTimes(j.error), 'error');
    cancel.hidden = FINISHED.has(j.status);
    const doneOk = j.status === 'done';
    apply.hidden = !(doneOk && j.dry_run && j.kind === 'job' && j.changed > 0 && j.rule_id && j.applied_as == null);
    undo.hidden = !(doneOk && !j.dry_run && j.kind === 'job' && j.changed > 0 && j.undone_by == null);
    links.replaceChildren(...eventLinks(j));
    links.hidden = links.childNodes.length === 0;
    report.replaceChildren(...(j.report ? [reportView(j.report, j.dry_run)] : []));
    traces.hidden = !FINISHED.has(j.status);
    if (focusWhenDone && FINISHED.has(j.status)) focusNextStep();
  }

  async function poll(): Promise<void> {
    try {
      render(await request<JobEvent>(`/api/events/${eventId}`));
    } catch (err) {
      say(status, errorMessage(err), 'error');
    }
    if (!stopped && !(job && FINISHED.has(job.status))) timer = window.setTimeout(() => void poll(), POLL_MS);
  }

  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    request(`/api/events/${eventId}/cancel`, { method: 'POST' })
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(() => (cancel.disabled = false));
  });
  apply.addEventListener('click', () => void applyForReal());
  async function applyForReal(): Promise<void> {
    if (!job?.rule_id) return;
    const question = `Write these changes to the dms? ${job.changed} ${job.changed === 1 ? 'document' : 'documents'} will change.`;
    if (!(await confirmDialog(question, 'Write the changes'))) return;
    apply.disabled = true;
    request<RunResult>(`/api/events/${eventId}/apply`, { method: 'POST' })
      .then((r) => {
        if (r.event_id == null) return;
        render({ ...job!, applied_as: r.event_id }); // no second apply while the next poll is on its way
        onNewJob?.(r.event_id);
      })
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(() => (apply.disabled = false));
  }
  undo.addEventListener('click', () => void undoChanges());
  async function undoChanges(): Promise<void> {
    if (!(await confirmDialog('Restore the fields this job changed to what they were before?', 'Undo the changes')))
      return;
    undo.disabled = true;
    request<{ event_id?: number }>(`/api/events/${eventId}/revert`, { method: 'POST' })
      .then((r) => {
        if (r.event_id == null) return;
        render({ ...job!, undone_by: r.event_id });
        onNewJob?.(r.event_id);
      })
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(() => (undo.disabled = false));
  }

  void poll();
  // After the element is in the page (the caller appends it when this returns).
  if (options.takeFocus) queueMicrotask(() => element.isConnected && focusIsOurs() && title.focus());
  return {
    element,
    stop() {
      stopped = true;
      window.clearTimeout(timer);
    },
  };
}
