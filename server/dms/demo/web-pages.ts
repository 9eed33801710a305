// The few web pages the demo dms has besides its API: a document's page (what "Open in the dms" links to) and a
// sign-in page. Paperless redirects every unknown path to /accounts/login/; without a page there, the redirect
// pointed at itself and a browser stopped with ERR_TOO_MANY_REDIRECTS.
import type { SimResult } from './http-kit.js';
import type { ObjectKind, SimDocument } from './sim-types.js';
import type { SimStore } from './store.js';

const DOCUMENT_PAGE = /^\/documents\/(\d+)(?:\/details)?\/?$/;
const LOGIN_PAGE = '/accounts/login/';
const HEADERS = { 'content-security-policy': "default-src 'none'", 'x-content-type-options': 'nosniff' };

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

// Django's redirect quotes the `next` path but keeps '/'.
const quoteNext = (path: string) => encodeURIComponent(path).replace(/%2F/g, '/');

function page(status: number, title: string, body: string): SimResult {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · demo dms</title></head><body>${body}</body></html>`;
  return { status, text: html, headers: HEADERS };
}

function nameOf(store: SimStore, kind: ObjectKind, id: number | null): string {
  if (id === null) return '—';
  return store.object(kind, id)?.name ?? `#${id}`;
}

function documentPage(store: SimStore, doc: SimDocument): SimResult {
  const rows: Array<[string, string]> = [
    ['Title', doc.title],
    ['Correspondent', nameOf(store, 'correspondents', doc.correspondent)],
    ['Document type', nameOf(store, 'document_types', doc.document_type)],
    ['Storage path', nameOf(store, 'storage_paths', doc.storage_path)],
    ['Tags', doc.tags.map((id) => nameOf(store, 'tags', id)).join(', ') || '—'],
    ['Created', doc.created],
    ['Archive serial number', doc.archive_serial_number === null ? '—' : String(doc.archive_serial_number)],
    ...doc.custom_fields.map((cf): [string, string] => [
      nameOf(store, 'custom_fields', cf.field),
      cf.value === null ? '—' : String(cf.value),
    ]),
    ['Notes', doc.notes.map((n) => n.note).join(' · ') || '—'],
  ];
  const table = rows
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  return page(
    200,
    doc.title,
    `<p>The dms-rules demo dms: sample documents kept in memory, no Paperless-ngx web interface.</p>` +
      `<h1>${escapeHtml(doc.title)}</h1><p>Document ${doc.id}</p><table>${table}</table><h2>Content</h2><pre>${escapeHtml(doc.content)}</pre>`,
  );
}

/** The answer to a path that is no API route: a demo page, or Paperless's redirect to its sign-in page. */
export function webPage(url: URL, store: SimStore): SimResult {
  const doc = DOCUMENT_PAGE.exec(url.pathname);
  if (doc) {
    const found = store.documents.get(Number(doc[1]));
    return found
      ? documentPage(store, found)
      : page(404, 'Not found', `<h1>Not found</h1><p>The demo dms has no document ${escapeHtml(doc[1])}.</p>`);
  }
  if (url.pathname === LOGIN_PAGE) {
    return page(
      200,
      'Sign in',
      '<h1>The dms-rules demo dms</h1><p>It has no sign-in and no web interface besides the document pages (/documents/ID/details).</p>',
    );
  }
  return { status: 302, headers: { location: `${LOGIN_PAGE}?next=${quoteNext(url.pathname + url.search)}` }, text: '' };
}
