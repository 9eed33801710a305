// The document panel: a drawer with one document as the dms has it (fields, custom fields, notes, owner and
// permissions, its text with each rule's matches marked). Given a run's changes it shows before and after.
import '../styles/document-panel.css';
import { errorMessage, request } from '../api.js';
import { focusedElement, formatTime, h } from '../dom.js';
import { latestOnly } from '../latest-only.js';
import type { DocumentView, FieldChange } from '../types.js';
import { formatValue } from '../value-format.js';
import { highlightedText } from './highlighted-text.js';

export interface DocumentPanelOptions {
  /** Shown while the document loads. */
  title?: string | null;
  /** A run's changes to this document (trace keys: `tags`, `custom_fields.Betrag`, `permissions.view.users`). */
  changes?: Record<string, FieldChange>;
  /** The changes were not written (dry run): the dms still holds "before". */
  dryRun?: boolean;
  /** Where to read the view instead of `/api/ui/documents/{id}`: e.g. one with a suggested rule's matches. */
  viewPath?: string;
  /** Said when nothing in the text is highlighted (default: no loaded rule's pattern matches). */
  noMatches?: string;
}

const FIELDS: Array<[string, string]> = [
  ['title', 'Title'],
  ['correspondent', 'Correspondent'],
  ['document_type', 'Document type'],
  ['storage_path', 'Storage path'],
  ['tags', 'Tags'],
  ['created', 'Created'],
  ['archive_serial_number', 'Archive serial number'],
];
const PERMISSION_ROWS: Array<[string, string]> = [
  ['owner', 'Owner'],
  ['permissions.view.users', 'May view: users'],
  ['permissions.view.groups', 'May view: groups'],
  ['permissions.change.users', 'May change: users'],
  ['permissions.change.groups', 'May change: groups'],
];

type Doc = DocumentView['document'];

function currentValue(doc: Doc, key: string): unknown {
  if (key.startsWith('custom_fields.')) {
    const name = key.slice('custom_fields.'.length);
    return Object.prototype.hasOwnProperty.call(doc.custom_fields, name) ? doc.custom_fields[name] : undefined;
  }
  if (key.startsWith('permissions.')) {
    const [, kind, target] = key.split('.') as [string, 'view' | 'change', 'users' | 'groups'];
    return doc.permissions ? doc.permissions[kind][target] : undefined;
  }
  return (doc as unknown as Record<string, unknown>)[key];
}

/** A value as the panel shows it: plain names and text, money and dates as people write them. */
function shown(value: unknown, key: string): HTMLElement {
  if (value === undefined)
    return h('span', { class: 'muted' }, key.startsWith('custom_fields.') ? 'not attached' : '—');
  if (value === null && key === 'owner') return h('span', { class: 'muted' }, 'no owner (everyone may see it)');
  if (value === null || value === '') return h('span', { class: 'muted' }, 'empty');
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { class: 'muted' }, 'none');
    return h('span', { class: 'chips' }, ...value.map((v) => h('span', { class: 'chip' }, plain(v))));
  }
  return h('span', {}, plain(value));
}

/**
 * One side of a changed list (tags): only the items that go are struck out under Before and only the new ones
 * marked under After; a tag on both sides reads as kept, not as removed.
 */
function listSide(items: unknown[], other: unknown[], mark: 'del' | 'ins'): HTMLElement {
  if (items.length === 0) return h('span', { class: 'muted' }, 'none');
  const others = new Set(other.map((v) => plain(v)));
  return h(
    'span',
    { class: 'chips' },
    ...items.map((v) => {
      const chip = h('span', { class: 'chip' }, plain(v));
      return others.has(plain(v)) ? chip : h(mark, {}, chip);
    }),
  );
}

function plain(value: unknown): string {
  // Plain text as it is; money in Paperless's wire form (EUR84.37) and dates as formatValue writes them.
  return typeof value === 'string' && !/^[A-Z]{3}-?\d+(\.\d+)?$/.test(value) && !/^\d{4}-\d{2}-\d{2}/.test(value)
    ? value
    : formatValue(value);
}

function fieldRows(
  doc: Doc,
  changes: Record<string, FieldChange> | undefined,
  keys: Array<[string, string]>,
): HTMLElement[] {
  return keys.map(([key, label]) => {
    const change = changes?.[key];
    const now = currentValue(doc, key);
    const attrs = { 'data-field': key, 'data-changed': change ? 'true' : null };
    if (!changes) return h('tr', { attrs }, h('th', { attrs: { scope: 'row' } }, label), h('td', {}, shown(now, key)));
    // A custom field that is not attached reads as null in a change.
    const side = (v: unknown) => (key.startsWith('custom_fields.') && v === null ? undefined : v);
    const before = change ? side(change.empty === 'from' ? null : change.from) : now;
    const after = change ? side(change.empty === 'to' ? null : change.to) : now;
    return h(
      'tr',
      { attrs },
      h('th', { attrs: { scope: 'row' } }, label),
      ...(change && Array.isArray(before) && Array.isArray(after)
        ? [h('td', {}, listSide(before, after, 'del')), h('td', {}, listSide(after, before, 'ins'))]
        : [
            h('td', {}, change ? h('del', {}, shown(before, key)) : shown(before, key)),
            h('td', {}, change ? h('ins', {}, shown(after, key)) : shown(after, key)),
          ]),
    );
  });
}

function fieldsTable(caption: string, rows: HTMLElement[], compare: boolean): HTMLElement {
  const head = compare
    ? h(
        'tr',
        {},
        h('th', { attrs: { scope: 'col' } }, 'Field'),
        h('th', { attrs: { scope: 'col' } }, 'Before'),
        h('th', { attrs: { scope: 'col' } }, 'After'),
      )
    : h('tr', {}, h('th', { attrs: { scope: 'col' } }, 'Field'), h('th', { attrs: { scope: 'col' } }, 'Value'));
  return h(
    'table',
    { class: `doc-fields${compare ? ' compare' : ''}` },
    h('caption', {}, caption),
    h('thead', {}, head),
    h('tbody', {}, ...rows),
  );
}

function notesSection(
  view: DocumentView,
  changes: Record<string, FieldChange> | undefined,
  dryRun: boolean,
): HTMLElement {
  const added = dryRun && Array.isArray(changes?.notes?.to) ? (changes.notes.to as string[]) : [];
  const items = [
    ...view.notes.map((n) =>
      h(
        'li',
        {},
        h('span', {}, n.note),
        h('span', { class: 'muted small' }, ` ${n.user ?? 'someone'}, ${formatTime(n.created)}`),
      ),
    ),
    ...added.map((n) =>
      h('li', {}, h('ins', {}, n), h('span', { class: 'muted small' }, ' would be added by this dry run')),
    ),
  ];
  return h(
    'section',
    { class: 'doc-notes' },
    h('h3', {}, 'Notes'),
    items.length ? h('ul', {}, ...items) : h('p', { class: 'muted' }, 'No notes.'),
  );
}

function textSection(view: DocumentView, noMatches: string | undefined): HTMLElement {
  const text = highlightedText(view.document.content, view.matches);
  const legend = text.rules.length
    ? h(
        'ul',
        { class: 'hl-legend', attrs: { 'aria-label': 'Rules whose patterns match this text' } },
        ...text.rules.map((r) =>
          h(
            'li',
            {},
            h('mark', { class: `hl hl-${r.colour}` }, r.rule_id),
            ` ${r.count} ${r.count === 1 ? 'match' : 'matches'}`,
          ),
        ),
      )
    : h('p', { class: 'muted small' }, noMatches ?? 'No loaded rule has a pattern that matches this text.');
  const cut = view.content_cut
    ? h(
        'p',
        { class: 'muted small' },
        `Only the first ${view.document.content.length.toLocaleString()} of ${view.content_cut.toLocaleString()} characters are shown.`,
      )
    : null;
  return h(
    'section',
    { class: 'doc-text-section' },
    h('h3', {}, 'Text'),
    legend,
    cut,
    view.document.content ? text.element : h('p', { class: 'muted' }, 'The document has no text (no OCR).'),
  );
}

function render(view: DocumentView, options: DocumentPanelOptions): HTMLElement[] {
  const doc = view.document;
  const changes = options.changes && Object.keys(options.changes).length ? options.changes : undefined;
  const customKeys = [
    ...new Set([
      ...Object.keys(doc.custom_fields).map((k) => `custom_fields.${k}`),
      ...Object.keys(changes ?? {}).filter((k) => k.startsWith('custom_fields.')),
    ]),
  ];
  const compareNote = changes
    ? h(
        'p',
        { class: 'compare-note', attrs: { id: 'doc-compare-note' } },
        options.dryRun
          ? 'Before: as the dms has it now. After: what the dry run would write (nothing was written).'
          : 'Before: as it was before the run. After: what the run wrote.',
      )
    : null;
  const meta = h(
    'p',
    { class: 'muted small doc-meta' },
    [
      doc.original_file_name,
      doc.mime_type,
      doc.page_count != null ? `${doc.page_count} pages` : null,
      doc.added ? `added ${formatTime(doc.added)}` : null,
      doc.modified ? `modified ${formatTime(doc.modified)}` : null,
    ]
      .filter(Boolean)
      .join(' · '),
  );
  return [
    meta,
    ...(compareNote ? [compareNote] : []),
    h(
      'div',
      { class: 'doc-columns' },
      h(
        'div',
        { class: 'doc-fields-col' },
        fieldsTable('Fields', fieldRows(doc, changes, FIELDS), !!changes),
        fieldsTable(
          'Custom fields',
          customKeys.length
            ? fieldRows(
                doc,
                changes,
                customKeys.map((k) => [k, k.slice('custom_fields.'.length)]),
              )
            : [h('tr', {}, h('td', { class: 'muted', attrs: { colspan: 3 } }, 'None attached.'))],
          !!changes,
        ),
        fieldsTable(
          'Owner and permissions',
          doc.permissions || doc.owner !== null
            ? fieldRows(doc, changes, PERMISSION_ROWS)
            : fieldRows(doc, changes, PERMISSION_ROWS.slice(0, 1)),
          !!changes,
        ),
        notesSection(view, changes, options.dryRun === true),
      ),
      textSection(view, options.noMatches),
    ),
  ];
}

interface Drawer {
  dialog: HTMLDialogElement;
  heading: HTMLElement;
  link: HTMLAnchorElement;
  body: HTMLElement;
}

let drawer: Drawer | null = null;
const panelLoads = latestOnly();

function ensureDrawer(): Drawer {
  if (drawer) return drawer;
  const heading = h('h2', { attrs: { id: 'document-panel-title' } });
  const link = h(
    'a',
    { class: 'dms-link', attrs: { target: '_blank', rel: 'noopener', id: 'document-panel-dms' } },
    'Open in the dms ↗',
  );
  const close = h(
    'button',
    { class: 'close', attrs: { type: 'button', 'aria-label': 'Close the document' } },
    'Close ✕',
  );
  const body = h('div', { class: 'document-panel-body', attrs: { 'aria-live': 'polite', 'aria-busy': 'false' } });
  const dialog = h(
    'dialog',
    { class: 'document-panel', attrs: { id: 'document-panel', 'aria-labelledby': 'document-panel-title' } },
    h('header', {}, heading, link, close),
    body,
  );
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close();
  });
  // The keyboard goes back to what opened the drawer.
  dialog.addEventListener('close', () => {
    if (drawerOpener?.isConnected) drawerOpener.focus();
    drawerOpener = null;
  });
  document.body.append(dialog);
  drawer = { dialog, heading, link, body };
  return drawer;
}

let drawerOpener: HTMLElement | null = null;

/** Opens the drawer on document `id` (over any other panel) and loads it from the dms through the service. */
export function openDocumentPanel(id: number, options: DocumentPanelOptions = {}): void {
  const d = ensureDrawer();
  const mine = panelLoads.begin();
  d.dialog.dataset.documentId = String(id);
  d.heading.textContent = options.title ? `${options.title} #${id}` : `Document #${id}`;
  d.link.hidden = true;
  d.body.setAttribute('aria-busy', 'true');
  d.body.replaceChildren(h('p', { class: 'muted' }, 'Loading the document from the dms…'));
  if (!d.dialog.open) {
    drawerOpener = focusedElement();
    d.dialog.showModal();
  }
  request<DocumentView>(options.viewPath ?? `/api/ui/documents/${id}`)
    .then((view) => {
      if (!mine.isLatest()) return;
      d.heading.textContent = `${view.document.title} #${id}`;
      d.link.href = view.link;
      d.link.hidden = false;
      d.body.replaceChildren(...render(view, options));
    })
    .catch((err: unknown) => {
      if (mine.isLatest())
        d.body.replaceChildren(h('p', { class: 'error-box', attrs: { role: 'alert' } }, errorMessage(err)));
    })
    .finally(() => {
      if (mine.isLatest()) d.body.setAttribute('aria-busy', 'false');
    });
}

/** A document named by its title (id after it), opening the panel; `options` as for openDocumentPanel. */
export function documentButton(
  id: number,
  title: string | null | undefined,
  options: DocumentPanelOptions = {},
): HTMLButtonElement {
  const button = h(
    'button',
    { class: 'doc-open', attrs: { type: 'button', 'data-document': id, title: 'Show the document' } },
    title ? h('span', { class: 'doc-title' }, title) : h('span', { class: 'doc-title' }, `Document ${id}`),
    h('span', { class: 'doc-id' }, ` #${id}`),
  );
  button.addEventListener('click', (event) => {
    event.preventDefault(); // inside a <summary>: open the panel, do not toggle the trace
    openDocumentPanel(id, { title, ...options });
  });
  return button;
}
