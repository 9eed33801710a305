// "Suggest a rule": pick a label the dms has, see rules learned from the documents that carry it, save one as a draft.
import '../styles/suggest-page.css';
import { errorMessage, request } from '../api.js';
import { documentButton } from '../components/document-panel.js';
import { h, say } from '../dom.js';
import { normalizeVocabulary, type Vocabulary } from '../editor/vocabulary.js';
import { navigate } from '../router.js';
import type { JobEvent as EventRecord } from '../types.js';
import type { SuggestionCandidate } from '../../../server/suggest/suggestion-types.js';

const KINDS: Array<[keyof Vocabulary, string, string]> = [
  ['tags', 'tag', 'Tag'],
  ['correspondents', 'correspondent', 'Correspondent'],
  ['document_types', 'document_type', 'Document type'],
  ['storage_paths', 'storage_path', 'Storage path'],
];
const POLL_MS = 400;

const percent = (x: number): string => `${(x * 100).toFixed(1)} %`;
const progress = (done: number, total: number): string => `${Math.min(100, Math.floor((100 * done) / total))} %`;

export function renderSuggestPage(main: HTMLElement): () => void {
  let stopped = false;
  let vocabulary: Vocabulary | null = null;
  const kind = h(
    'select',
    { attrs: { id: 'suggest-kind', name: 'kind' } },
    ...KINDS.map(([, value, label]) => h('option', { attrs: { value } }, label)),
  );
  const names = h('datalist', { attrs: { id: 'suggest-names' } });
  const name = h('input', {
    attrs: { id: 'suggest-name', name: 'name', list: 'suggest-names', required: true, autocomplete: 'off' },
  });
  const status = h('p', { class: 'suggest-status', attrs: { role: 'status', 'aria-live': 'polite' } });
  const results = h('div', { class: 'suggest-results' });
  const fillNames = () => {
    const list = vocabulary?.[KINDS.find(([, v]) => v === kind.value)?.[0] ?? 'tags'] ?? [];
    names.replaceChildren(...list.map((n) => h('option', { attrs: { value: n } })));
  };
  kind.addEventListener('change', fillNames);
  const form = h(
    'form',
    { class: 'suggest-form' },
    h('label', { attrs: { for: 'suggest-kind' } }, 'Suggest a rule that sets the'),
    kind,
    h('label', { attrs: { for: 'suggest-name' } }, 'named'),
    name,
    names,
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Suggest'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void suggest();
  });
  main.append(
    h(
      'section',
      { class: 'suggest-page' },
      h('h2', {}, 'Suggest a rule'),
      h(
        'p',
        { class: 'muted' },
        'A rule is learned from the documents that already carry the label, and judged over the whole archive.',
      ),
      form,
      status,
      results,
    ),
  );
  void request<{ vocabulary: unknown }>('/api/ui/schema')
    .then((r) => {
      vocabulary = normalizeVocabulary(r.vocabulary);
      fillNames();
    })
    .catch(() => undefined);

  async function suggest(): Promise<void> {
    results.replaceChildren();
    say(status, 'Reading the archive and learning…');
    try {
      const started = await request<{ event_id: number }>('/api/suggestions', {
        method: 'POST',
        json: { target: { [kind.value]: name.value.trim() } },
      });
      let event = await request<EventRecord>(`/api/events/${started.event_id}`);
      while (!stopped && ['queued', 'running'].includes(event.status)) {
        if (event.total) say(status, `Reading the archive and learning… ${progress(event.processed, event.total)}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        event = await request<EventRecord>(`/api/events/${started.event_id}`);
      }
      if (stopped) return;
      if (event.status !== 'done') return say(status, event.error ?? `The suggestion ended ${event.status}.`, 'error');
      say(status, event.report?.summary ?? '', 'ok');
      const warnings = event.report?.visibility?.warnings ?? [];
      results.replaceChildren(
        ...warnings.map((w) => h('p', { class: 'suggest-warning', attrs: { role: 'note' } }, w)),
        ...(event.report?.suggestions ?? []).map((c) => candidateCard(started.event_id, c)),
      );
    } catch (err) {
      say(status, errorMessage(err), 'error');
    }
  }

  return () => {
    stopped = true;
  };
}

/** Each listed document opens in the document panel with the suggested rule's matches marked in its text. */
function documentList(
  heading: string,
  docs: SuggestionCandidate['would_add'],
  total: number,
  eventId: number,
  ruleId: string,
): HTMLElement {
  const options = (id: number) => ({
    viewPath: `/api/suggestions/${eventId}/documents/${id}?rule_id=${encodeURIComponent(ruleId)}`,
    noMatches: 'The suggested rule finds none of its words in this text.',
  });
  return h(
    'details',
    { class: 'suggest-docs' },
    h('summary', {}, `${heading}: ${total}`),
    h('ul', {}, ...docs.map((d) => h('li', {}, documentButton(d.id, d.title, options(d.id))))),
  );
}

function candidateCard(eventId: number, candidate: SuggestionCandidate): HTMLElement {
  const feedback = h('p', { class: 'suggest-feedback', attrs: { role: 'status' } });
  const save = h(
    'button',
    { class: 'primary', attrs: { type: 'button', 'data-save-draft': candidate.rule_id } },
    'Save as a draft rule file',
  );
  save.addEventListener('click', () => {
    void (async () => {
      try {
        const file = await request<{ id: string }>('/api/ui/rules', {
          method: 'POST',
          json: { filename: `suggested/${candidate.rule_id}.yml` },
        });
        await request(`/api/ui/rules/${encodeURIComponent(file.id)}`, {
          method: 'PUT',
          text: candidate.yaml,
          query: { draft: true },
        });
        navigate(`/rules/${encodeURIComponent(file.id)}`);
      } catch (err) {
        say(feedback, errorMessage(err), 'error');
      }
    })();
  });
  return h(
    'article',
    { class: 'suggest-card', attrs: { 'data-rule': candidate.rule_id } },
    h('h3', {}, `${candidate.variant}: ${candidate.rule_id}`),
    h(
      'dl',
      { class: 'suggest-figures' },
      h('dt', {}, 'Precision'),
      h('dd', { attrs: { 'data-figure': 'precision' } }, percent(candidate.precision)),
      h('dt', {}, 'Recall'),
      h('dd', { attrs: { 'data-figure': 'recall' } }, percent(candidate.recall)),
      h('dt', {}, 'Held out'),
      h(
        'dd',
        { attrs: { title: candidate.holdout.method } },
        `${percent(candidate.holdout.precision)} precise, ${percent(candidate.holdout.recall)} found`,
      ),
    ),
    h('pre', { class: 'suggest-yaml' }, candidate.yaml),
    documentList('Would add the label to', candidate.would_add, candidate.would_add_count, eventId, candidate.rule_id),
    documentList('Would miss', candidate.would_miss, candidate.would_miss_count, eventId, candidate.rule_id),
    save,
    feedback,
  );
}
