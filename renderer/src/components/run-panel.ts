// Run rules now: one document (traces shown at once) or one rule over all documents (a job).
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';
import type { RunResult } from '../types.js';
import { documentPicker } from './document-picker.js';
import { jobPanel, type JobPanel } from './job-panel.js';
import { traceList } from './trace-view.js';

export interface RunPanel {
  element: HTMLElement;
  /** Offers these rule ids (the edited file's first), plus "all rules". */
  setRules(fileRules: string[], allRules: string[]): void;
  stop(): void;
}

export function runPanel(): RunPanel {
  const picker = documentPicker('run-document');
  const rule = h('select', { attrs: { id: 'run-rule' } });
  const dry = h('input', { attrs: { id: 'run-dry', type: 'checkbox', role: 'switch', checked: true } });
  dry.checked = true;
  const dryLabel = h('label', { class: 'switch', attrs: { for: 'run-dry' } }, dry, h('span', {}, 'Dry run (change nothing)'));
  const run = h('button', { class: 'primary', attrs: { type: 'submit', id: 'run-button' } }, 'Run on document');
  const runAll = h('button', { attrs: { type: 'button', id: 'run-all-button' } }, 'Run this rule on all documents');
  const status = h('p', { class: 'status', attrs: { role: 'alert', hidden: true } });
  const results = h('div', { class: 'run-results', attrs: { id: 'run-results', 'aria-live': 'polite' } });
  const jobs = h('div', { class: 'run-jobs' });
  let panels: JobPanel[] = [];

  const form = h(
    'form',
    { class: 'run-form' },
    h('label', { attrs: { for: 'run-document' } }, 'Document'),
    picker.element,
    h('label', { attrs: { for: 'run-rule' } }, 'Rule'),
    rule,
    dryLabel,
    h('div', { class: 'buttons' }, run, runAll),
    status,
  );

  function syncDry(): void {
    dryLabel.classList.toggle('live', !dry.checked);
    run.textContent = dry.checked ? 'Dry-run on document' : 'Run on document (writes)';
  }
  dry.addEventListener('change', syncDry);
  syncDry();

  function follow(eventId: number): void {
    const panel = jobPanel(eventId, follow);
    panels.push(panel);
    jobs.prepend(panel.element);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const document = picker.value();
    if (document === null) return say(status, 'Enter a document id, or type part of a title and pick a document.', 'error');
    say(status, '');
    run.disabled = true;
    results.replaceChildren(h('p', { class: 'muted' }, 'Running…'));
    request<RunResult>('/api/run', { method: 'POST', query: { document, rule_id: rule.value || undefined, dry_run: dry.checked } })
      .then((r) => {
        const traces = r.traces ?? [];
        results.replaceChildren(
          h('h3', {}, `${traces.length} trace${traces.length === 1 ? '' : 's'} for document ${document}${r.dry_run ? ' (dry run)' : ''}`),
          traceList(traces, 'No rule ran: no loaded rule applies to manual runs, or the file has errors.', true),
        );
      })
      .catch((err: unknown) => {
        results.replaceChildren();
        say(status, errorMessage(err), 'error');
      })
      .finally(() => (run.disabled = false));
  });

  runAll.addEventListener('click', () => {
    if (!rule.value) return say(status, 'Choose one rule to run on all documents.', 'error');
    if (!dry.checked && !window.confirm(`Run ${rule.value} on ALL documents and write the changes?`)) return;
    say(status, '');
    runAll.disabled = true;
    request<RunResult>('/api/run', { method: 'POST', query: { rule_id: rule.value, dry_run: dry.checked } })
      .then((r) => (r.event_id != null ? follow(r.event_id) : say(status, 'The service did not start a job.', 'error')))
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(() => (runAll.disabled = false));
  });

  return {
    element: h('section', { class: 'run-panel', attrs: { 'aria-labelledby': 'run-title' } }, h('h2', { attrs: { id: 'run-title' } }, 'Run'), form, jobs, results),
    setRules(fileRules, allRules) {
      const previous = rule.value;
      const others = allRules.filter((r) => !fileRules.includes(r));
      rule.replaceChildren(
        h('option', { attrs: { value: '' } }, 'All rules'),
        ...(fileRules.length ? [h('optgroup', { attrs: { label: 'This file' } }, ...fileRules.map((r) => h('option', { attrs: { value: r } }, r)))] : []),
        ...(others.length ? [h('optgroup', { attrs: { label: 'Other files' } }, ...others.map((r) => h('option', { attrs: { value: r } }, r)))] : []),
      );
      const keep = [...fileRules, ...others].includes(previous) ? previous : (fileRules[0] ?? '');
      rule.value = keep;
    },
    stop() {
      for (const p of panels) p.stop();
      panels = [];
    },
  };
}
