// Pick a document by id, or by typing part of its title (searched in the dms through the service).
import { errorMessage, request } from '../api.js';
import { h } from '../dom.js';
import type { DocumentHit } from '../types.js';

export interface DocumentPicker {
  element: HTMLElement;
  /** The chosen document id, or null when the field holds no number. */
  value(): number | null;
  /** The title of the document picked from the search, if it was picked that way. */
  title(): string | null;
}

export function documentPicker(id: string): DocumentPicker {
  const input = h('input', {
    attrs: {
      id,
      type: 'text',
      inputmode: 'search',
      autocomplete: 'off',
      placeholder: 'id or title',
      role: 'combobox',
      'aria-expanded': 'false',
      'aria-controls': `${id}-results`,
      'aria-autocomplete': 'list',
    },
  });
  const results = h('ul', {
    class: 'search-results',
    attrs: { id: `${id}-results`, role: 'listbox', hidden: true, 'aria-label': 'Documents, the latest first' },
  });
  const chosen = h('span', { class: 'muted small', attrs: { 'aria-live': 'polite' } });
  let timer: number | undefined;
  let seq = 0;
  let hits: DocumentHit[] = [];
  /** The option the arrow keys are on (focus stays in the input: aria-activedescendant points at it). */
  let active = -1;

  const options = () => [...results.querySelectorAll<HTMLElement>('[role=option]')];

  function setActive(index: number): void {
    const list = options();
    active = list.length ? (index + list.length) % list.length : -1;
    list.forEach((li, i) => li.setAttribute('aria-selected', String(i === active)));
    if (active >= 0) {
      input.setAttribute('aria-activedescendant', list[active].id);
      list[active].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function close(): void {
    seq++; // an answer still on its way no longer opens the list
    results.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  }

  function pick(doc: DocumentHit): void {
    input.value = String(doc.id);
    chosen.textContent = doc.title;
    close();
    input.focus();
  }

  async function search(text: string): Promise<void> {
    const mine = ++seq;
    let found: DocumentHit[] = [];
    let problem = '';
    try {
      found = (await request<{ documents: DocumentHit[] }>('/api/ui/documents', { query: { search: text } })).documents;
    } catch (err) {
      problem = errorMessage(err);
    }
    if (mine !== seq || document.activeElement !== input) return; // a newer search is under way, or the person left
    hits = problem ? [] : found;
    results.replaceChildren(
      ...(problem
        ? [h('li', { class: 'error-text' }, problem)]
        : hits.length === 0
          ? [
              h(
                'li',
                { class: 'muted' },
                text ? `No document title contains "${text}".` : 'The dms has no documents yet.',
              ),
            ]
          : hits.map((d) => {
              const li = h(
                'li',
                { attrs: { role: 'option', id: `${id}-option-${d.id}`, 'aria-selected': 'false', 'data-id': d.id } },
                h('strong', {}, `#${d.id}`),
                ` ${d.title}`,
              );
              // mousedown, not click: the input keeps focus, so the list does not close before the pick.
              li.addEventListener('mousedown', (e) => {
                e.preventDefault();
                pick(d);
              });
              return li;
            })),
    );
    results.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    setActive(hits.length ? 0 : -1);
  }

  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    const text = input.value.trim();
    chosen.textContent = '';
    hits = [];
    close(); // the list shown was for the text before this keystroke
    // A number is an id (nothing to look up); no text offers the latest documents again.
    if (/^\d+$/.test(text)) return;
    timer = window.setTimeout(() => void search(text), 250);
  });
  // Before anything is typed: the latest documents, as Paperless lists them.
  input.addEventListener('focus', () => {
    if (input.value.trim() === '') void search('');
  });
  input.addEventListener('keydown', (e) => {
    const open = !results.hidden && hits.length > 0;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!open) return;
      e.preventDefault();
      setActive(active + (e.key === 'ArrowDown' ? 1 : -1));
    } else if (e.key === 'Enter' && open) {
      // The first Enter picks the highlighted document; with the list closed, Enter submits the form (runs).
      e.preventDefault();
      pick(hits[Math.max(active, 0)]);
    } else if (e.key === 'Escape' && !results.hidden) {
      e.preventDefault();
      close();
    }
  });
  input.addEventListener('blur', () => close());

  return {
    element: h('div', { class: 'document-picker' }, input, results, chosen),
    title: () => chosen.textContent || null,
    value() {
      const text = input.value.trim();
      return /^\d+$/.test(text) ? Number(text) : null;
    },
  };
}
