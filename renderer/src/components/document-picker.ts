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
  const results = h('ul', { class: 'search-results', attrs: { id: `${id}-results`, role: 'listbox', hidden: true } });
  const chosen = h('span', { class: 'muted small', attrs: { 'aria-live': 'polite' } });
  let timer: number | undefined;
  let seq = 0;

  function close(): void {
    results.hidden = true;
    input.setAttribute('aria-expanded', 'false');
  }

  function pick(doc: DocumentHit): void {
    input.value = String(doc.id);
    chosen.textContent = doc.title;
    close();
    input.focus();
  }

  async function search(text: string): Promise<void> {
    const mine = ++seq;
    let hits: DocumentHit[] = [];
    let problem = '';
    try {
      hits = (await request<{ documents: DocumentHit[] }>('/api/ui/documents', { query: { search: text } })).documents;
    } catch (err) {
      problem = errorMessage(err);
    }
    if (mine !== seq) return; // a newer search is under way
    results.replaceChildren(
      ...(problem
        ? [h('li', { class: 'error-text' }, problem)]
        : hits.length === 0
          ? [h('li', { class: 'muted' }, `No document title contains "${text}".`)]
          : hits.map((d) => {
              const li = h('li', { attrs: { role: 'option', tabindex: -1, 'data-id': d.id } }, h('strong', {}, `#${d.id}`), ` ${d.title}`);
              li.addEventListener('click', () => pick(d));
              li.addEventListener('keydown', (e) => {
                if (e.key === 'Enter') pick(d);
                if (e.key === 'ArrowDown') (li.nextElementSibling as HTMLElement | null)?.focus();
                if (e.key === 'ArrowUp') ((li.previousElementSibling as HTMLElement | null) ?? input).focus();
                if (e.key === 'Escape') {
                  close();
                  input.focus();
                }
              });
              return li;
            })),
    );
    results.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  }

  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    const text = input.value.trim();
    chosen.textContent = '';
    if (/^\d*$/.test(text) || text.length < 2) return close();
    timer = window.setTimeout(() => void search(text), 250);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' && !results.hidden) {
      e.preventDefault();
      results.querySelector<HTMLElement>('[role=option]')?.focus();
    }
    if (e.key === 'Escape') close();
  });

  return {
    element: h('div', { class: 'document-picker' }, input, results, chosen),
    title: () => chosen.textContent || null,
    value() {
      const text = input.value.trim();
      return /^\d+$/.test(text) ? Number(text) : null;
    },
  };
}
