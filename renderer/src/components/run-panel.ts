// Run rules now: one document (traces shown at once) or one rule over all documents (a job).
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';
import { uiConfig } from '../session.js';
import type { FieldChange, RunResult } from '../types.js';
import { documentButton } from './document-panel.js';
import { documentPicker } from './document-picker.js';
import type { EditorVersion } from './editor-pane.js';
import { confirmDialog } from './confirm-dialog.js';
import { jobPanel, type JobPanel } from './job-panel.js';
import { runSummary } from './run-summary.js';
import { traceDialog } from './trace-dialog.js';
import { revealTrace, runTraceList } from './trace-view.js';

/** The editor's text, which a dry run from the rules page runs instead of the published file. */
export interface RunSource {
  fileId: string;
  path: string;
  text(): string;
  version(): EditorVersion;
}

const RAN: Record<EditorVersion, string> = {
  unsaved: "the editor's unsaved text",
  draft: 'the saved draft (not published)',
  published: 'the published file',
};

/** The rules' changes in run order as one before → after: a field two rules change goes from the first's before to the last's after. */
function mergedChanges(list: Array<Record<string, FieldChange>>): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  for (const changes of list)
    for (const [field, c] of Object.entries(changes)) out[field] = out[field] ? { ...c, from: out[field].from } : c;
  return out;
}

/** The traces page filtered to one rule (its whole id, not every id that starts the same). */
export function tracesOfRule(ruleId: string): string {
  return `/traces?rule_id=${encodeURIComponent(ruleId)}&exact=1`;
}

export interface RunPanel {
  element: HTMLElement;
  /** Offers these rule ids (the edited file's first), plus "all rules". */
  setRules(fileRules: string[], allRules: string[]): void;
  stop(): void;
}

export function runPanel(source?: RunSource): RunPanel {
  const picker = documentPicker('run-document');
  const rule = h('select', { attrs: { id: 'run-rule' } });
  const dry = h('input', { attrs: { id: 'run-dry', type: 'checkbox', role: 'switch', checked: true } });
  dry.checked = true;
  const dryLabel = h(
    'label',
    { class: 'switch', attrs: { for: 'run-dry' } },
    dry,
    h('span', {}, 'Dry run (change nothing)'),
  );
  const run = h('button', { class: 'primary', attrs: { type: 'submit', id: 'run-button' } }, 'Run on document');
  const runAll = h('button', { attrs: { type: 'button', id: 'run-all-button' } }, 'Dry-run this rule on all documents');
  const skipDry = h('input', { attrs: { id: 'run-skip-report', type: 'checkbox' } });
  const skipLabel = h(
    'label',
    { class: 'check small', attrs: { for: 'run-skip-report', hidden: true } },
    skipDry,
    ' Skip the dry report and write at once',
  );
  const status = h('p', { class: 'status', attrs: { role: 'alert', hidden: true } });
  const results = h('div', { class: 'run-results', attrs: { 'aria-live': 'polite' } });
  const dialog = traceDialog('run-results');
  const jobs = h('div', { class: 'run-jobs' });
  const ruleTraces = h('p', { class: 'rule-traces small', attrs: { hidden: true } });
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
    skipLabel,
    status,
  );

  function syncDry(): void {
    dryLabel.classList.toggle('live', !dry.checked);
    run.textContent = dry.checked ? 'Dry-run on document' : 'Run on document (writes)';
    // Writing to every document goes through the dry report first, unless the person says to skip it.
    skipLabel.hidden = dry.checked;
    runAll.textContent = dry.checked
      ? 'Dry-run this rule on all documents'
      : skipDry.checked
        ? 'Write to all documents now'
        : 'Write to all documents (dry report first)';
    runAll.classList.toggle('danger', !dry.checked);
    // A job runs one rule over every document: with "All rules" chosen there is nothing to start.
    runAll.disabled = rule.value === '';
    runAll.title = rule.value === '' ? 'Choose one rule above to run it on all documents' : '';
  }
  rule.addEventListener('change', syncDry);
  skipDry.addEventListener('change', syncDry);
  dry.addEventListener('change', syncDry);
  syncDry();

  /** `opener`: the button that started it; the new panel then takes the keyboard (see jobPanel). */
  function follow(eventId: number, opener?: HTMLElement): void {
    const panel = jobPanel(eventId, { onNewJob: (id) => follow(id), takeFocus: true, opener });
    panels.push(panel);
    jobs.prepend(panel.element);
  }

  async function runOnDocument(
    document: number,
  ): Promise<{ r: RunResult & { document_title?: string }; ran: string | null }> {
    const ruleId = rule.value || undefined;
    // A dry run from the editor tries what is being edited; a real run writes what is published.
    if (source && dry.checked) {
      const version = source.version();
      const r = await request<RunResult & { document_title?: string }>(
        `/api/ui/rules/${encodeURIComponent(source.fileId)}/dry-run`,
        {
          method: 'POST',
          text: source.text(),
          query: { document, rule_id: ruleId },
        },
      );
      return { r, ran: `Ran ${RAN[version]} of ${source.path}${ruleId ? '' : ' with the other loaded files'}.` };
    }
    const r = await request<RunResult>('/api/run', {
      method: 'POST',
      query: { document, rule_id: ruleId, dry_run: dry.checked },
    });
    return { r, ran: source ? `Ran the published rules (a real run writes only what is published).` : null };
  }

  /** The document's title for the heading, also when it was entered by id (the run answer may not carry it). */
  async function pickedTitle(document: number): Promise<string | null> {
    const picked = picker.title();
    if (picked) return picked;
    try {
      const { titles } = await request<{ titles: Record<number, string> }>('/api/ui/documents/titles', {
        query: { ids: document },
      });
      return titles[document] ?? null;
    } catch {
      return null; // the heading says "#10" alone; the run itself does not depend on it
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const document = picker.value();
    if (document === null)
      return say(status, 'Enter a document id, or type part of a title and pick a document.', 'error');
    say(status, '');
    run.disabled = true;
    results.replaceChildren(h('p', { class: 'muted' }, 'Running…'));
    Promise.all([runOnDocument(document), uiConfig().catch(() => null), pickedTitle(document)])
      .then(([{ r, ran }, config, known]) => {
        const traces = r.traces ?? [];
        const title = r.document_title ?? known;
        const links = { dmsUrl: config?.dms_url ?? null, titles: title ? { [document]: title } : {} };
        const heading = `${traces.length} trace${traces.length === 1 ? '' : 's'} for #${document}${title ? ` ${title}` : ''}${r.dry_run ? ' (dry run)' : ''}`;
        const note = ran ? h('p', { class: 'ran-what', attrs: { id: 'run-ran' } }, ran) : null;
        results.replaceChildren(h('p', {}, heading), ...(note ? [note.cloneNode(true) as HTMLElement] : []));
        const reopen = h('button', { attrs: { type: 'button' } }, 'Show the traces again');
        reopen.addEventListener('click', () => {
          dialog.returnTo(reopen);
          dialog.element.showModal();
        });
        const changes = mergedChanges(traces.map((t) => t.changes ?? {}));
        const beforeAfter = () => documentButton(document, title, { changes, dryRun: r.dry_run });
        const docLine = () =>
          h(
            'p',
            { class: 'run-document' },
            'Document: ',
            beforeAfter(),
            Object.keys(changes).length ? ' (before and after)' : '',
          );
        results.append(reopen, docLine());
        const list = runTraceList(
          traces,
          'No rule ran: no loaded rule applies to manual runs, or the file has errors.',
          links,
        );
        dialog.returnTo(run); // disabled while it ran, so it had lost the keyboard
        dialog.show(
          heading,
          ...(note ? [note] : []),
          docLine(),
          ...(traces.length > 1 ? [runSummary(traces, (ruleId) => revealTrace(list, ruleId))] : []),
          list,
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
    const writeNow = !dry.checked && skipDry.checked;
    if (writeNow) {
      const question = `Write ${rule.value}'s changes to ALL documents now, without a dry report first?`;
      void confirmDialog(question, 'Write to all documents').then((yes) => {
        if (yes) startJob(true);
      });
    } else startJob(false);
  });

  function startJob(writeNow: boolean): void {
    say(
      status,
      dry.checked || writeNow ? '' : 'A dry run first: read its report, then "Apply for real" writes.',
      'info',
    );
    runAll.disabled = true;
    request<RunResult>('/api/run', { method: 'POST', query: { rule_id: rule.value, dry_run: !writeNow } })
      .then((r) =>
        r.event_id != null ? follow(r.event_id, runAll) : say(status, 'The service did not start a job.', 'error'),
      )
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(syncDry);
  }

  return {
    element: h(
      'section',
      { class: 'run-panel', attrs: { 'aria-labelledby': 'run-title' } },
      h('h2', { attrs: { id: 'run-title' } }, 'Run'),
      form,
      ruleTraces,
      results,
      jobs,
      dialog.element,
    ),
    setRules(fileRules, allRules) {
      ruleTraces.replaceChildren(
        'Past runs: ',
        ...fileRules.flatMap((id, i) => [
          i ? ' · ' : '',
          h('a', { attrs: { href: tracesOfRule(id), 'data-nav': true, 'aria-label': `Traces of ${id}` } }, id),
        ]),
      );
      ruleTraces.hidden = fileRules.length === 0;
      const previous = rule.value;
      const others = allRules.filter((r) => !fileRules.includes(r));
      rule.replaceChildren(
        h('option', { attrs: { value: '' } }, 'All rules'),
        ...(fileRules.length
          ? [
              h(
                'optgroup',
                { attrs: { label: 'This file' } },
                ...fileRules.map((r) => h('option', { attrs: { value: r } }, r)),
              ),
            ]
          : []),
        ...(others.length
          ? [
              h(
                'optgroup',
                { attrs: { label: 'Other files' } },
                ...others.map((r) => h('option', { attrs: { value: r } }, r)),
              ),
            ]
          : []),
      );
      const keep = [...fileRules, ...others].includes(previous) ? previous : (fileRules[0] ?? '');
      rule.value = keep;
      syncDry();
    },
    stop() {
      if (dialog.element.open) dialog.close();
      for (const p of panels) p.stop();
      panels = [];
    },
  };
}
