// Traces, newest first, filtered by document, rule, status and job; each one expands to the full story.
import { errorMessage, request } from '../api.js';
import { h } from '../dom.js';
import { latestOnly } from '../latest-only.js';
import { traceList } from '../components/trace-view.js';
import { uiConfig } from '../session.js';
import type { DocumentHit, Trace } from '../types.js';

/** The filters as the service takes them: a title becomes the documents it names, a rule id a prefix. */
async function serviceQuery(
  query: Record<string, string>,
): Promise<{ query: Record<string, string>; titles: Record<number, string> }> {
  const out: Record<string, string> = { ...query };
  const titles: Record<number, string> = {};
  delete out.document;
  delete out.rule_id;
  delete out.exact;
  if (query.rule_id && query.exact) out.rule_id = query.rule_id;
  else if (query.rule_id) out.rule_prefix = query.rule_id;
  if (query.document && /^\d+$/.test(query.document)) out.document = query.document;
  else if (query.document) {
    const { documents } = await request<{ documents: DocumentHit[] }>('/api/ui/documents', {
      query: { search: query.document },
    });
    for (const d of documents) titles[d.id] = d.title;
    // No document has that title: ask for one that cannot exist, so the list says "no match".
    out.documents = documents.length
      ? documents
          .slice(0, 100)
          .map((d) => d.id)
          .join(',')
      : '999999999999999';
  }
  return { query: out, titles };
}

/** Titles of the listed documents not known yet; the list still shows (ids only) when the dms cannot answer. */
async function missingTitles(traces: Trace[], known: Record<number, string>): Promise<Record<number, string>> {
  const ids = [...new Set(traces.map((t) => t.document))].filter((id) => !(id in known));
  if (ids.length === 0) return {};
  try {
    return (
      await request<{ titles: Record<number, string> }>('/api/ui/documents/titles', {
        query: { ids: ids.slice(0, 200).join(',') },
      })
    ).titles;
  } catch {
    return {};
  }
}

const FILTERS = ['document', 'rule_id', 'status', 'event_id'] as const;
const STATUSES = ['matched', 'not_matched', 'error', 'skipped', 'timeout'];

export function renderTracesPage(main: HTMLElement): () => void {
  const params = new URLSearchParams(location.search);
  const input = (
    id: string,
    label: string,
    attrs: Record<string, string> = {},
  ): [HTMLLabelElement, HTMLInputElement] => {
    const el = h('input', { attrs: { id: `filter-${id}`, name: id, value: params.get(id) ?? '', ...attrs } });
    return [h('label', { attrs: { for: `filter-${id}` } }, label), el];
  };
  const [docLabel, doc] = input('document', 'Document id or title');
  const [ruleLabel, rule] = input('rule_id', 'Rule id or its start');
  // "Traces" from a rule asks for that rule alone, not every rule whose id starts the same.
  const exact = h('input', {
    attrs: { id: 'filter-exact', name: 'exact', type: 'checkbox', checked: params.has('exact') },
  });
  const [eventLabel, eventId] = input('event_id', 'Job / event id', { inputmode: 'numeric', pattern: '\\d*' });
  const status = h(
    'select',
    { attrs: { id: 'filter-status', name: 'status' } },
    h('option', { attrs: { value: '' } }, 'any'),
    ...STATUSES.map((s) =>
      h('option', { attrs: { value: s, selected: params.get('status') === s } }, s.replace('_', ' ')),
    ),
  );
  const list = h('div', { class: 'traces-host', attrs: { 'aria-live': 'polite', 'aria-busy': 'false' } });
  const summary = h('p', { class: 'muted' });
  const form = h(
    'form',
    { class: 'filters', attrs: { role: 'search', 'aria-label': 'Filter traces' } },
    h('div', {}, docLabel, doc),
    h(
      'div',
      {},
      ruleLabel,
      rule,
      h('label', { class: 'check small', attrs: { for: 'filter-exact' } }, exact, ' whole id only'),
    ),
    h('div', {}, h('label', { attrs: { for: 'filter-status' } }, 'Status'), status),
    h('div', {}, eventLabel, eventId),
    h(
      'div',
      { class: 'buttons' },
      h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Show'),
      h('button', { attrs: { type: 'reset' } }, 'Clear'),
    ),
  );

  // The page's first load or a previous filter may answer after a newer filter's.
  const loads = latestOnly();
  async function load(): Promise<void> {
    const thisLoad = loads.begin();
    const query: Record<string, string> = {};
    for (const name of FILTERS) {
      const value = (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value.trim();
      if (value) query[name] = value;
    }
    if (exact.checked && query.rule_id) query.exact = '1';
    const qs = new URLSearchParams(query).toString();
    history.replaceState(null, '', qs ? `/traces?${qs}` : '/traces');
    list.setAttribute('aria-busy', 'true');
    try {
      const [{ query: sent, titles }, config] = await Promise.all([serviceQuery(query), uiConfig().catch(() => null)]);
      const { traces } = await request<{ traces: Trace[] }>('/api/traces', { query: { ...sent, limit: 200 } });
      Object.assign(titles, await missingTitles(traces, titles));
      if (!thisLoad.isLatest()) return;
      const filtered = Object.keys(query).length > 0;
      summary.textContent = `${traces.length} trace${traces.length === 1 ? '' : 's'}${filtered ? ' matching the filters' : ''}, newest first${traces.length === 200 ? ' (the latest 200)' : ''}.`;
      list.replaceChildren(
        traceList(
          traces,
          filtered
            ? 'No trace matches these filters. Clear them to see everything.'
            : 'No traces yet. Run a rule on a document (Rules page) and its trace appears here.',
          false,
          { dmsUrl: config?.dms_url ?? null, titles },
        ),
      );
    } catch (err) {
      if (!thisLoad.isLatest()) return;
      list.replaceChildren(
        h('p', { class: 'error-box', attrs: { role: 'alert', 'data-load-failed': true } }, errorMessage(err)),
      );
    } finally {
      if (thisLoad.isLatest()) list.setAttribute('aria-busy', 'false');
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void load();
  });
  form.addEventListener('reset', () => {
    // After the browser has cleared the fields (reset restores value attributes: empty them first).
    for (const el of [doc, rule, eventId]) el.setAttribute('value', '');
    exact.removeAttribute('checked');
    status.querySelectorAll('option').forEach((o) => o.removeAttribute('selected'));
    window.setTimeout(() => void load(), 0);
  });
  main.append(h('section', { class: 'traces-page' }, h('h1', {}, 'Traces'), form, summary, list));
  void load();
  return () => undefined;
}
