// The rules directory as a tree: top-level files, then one folder per package; vars files, drafts and
// files that failed to load are marked. Also the "new file" form with the same name rules as the server.
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';
import { withExtension } from '../file-name.js';
import type { RuleFileEntry } from '../types.js';

/** The file's load error as one line, when it has one. */
export function fileError(file: RuleFileEntry): string | null {
  const e = file.error;
  if (!e) return null;
  if (typeof e === 'string') return e;
  const message = e.message ?? 'This file did not load.';
  // The service's message may already say where; name the place once.
  if (!e.line || /^line \d+/i.test(message)) return message;
  return `line ${e.line}${e.column ? `, column ${e.column}` : ''}: ${message}`;
}

/** Client-side check of a new file name; the server checks again. Returns the problem or null. */
export function fileNameProblem(name: string): string | null {
  if (name.trim() === '') return 'Enter a file name such as invoices.yml or finance/invoices.yml.';
  if (!/\.ya?ml$/.test(name)) return 'The name must end in .yml or .yaml.';
  if (name.includes('\\') || name.startsWith('/'))
    return 'Use a plain name, or one package folder like finance/invoices.yml.';
  const parts = name.split('/');
  if (parts.length > 2) return 'Only one package folder is allowed: package/name.yml.';
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.startsWith('.')))
    return 'Folder and file names may not be empty or start with a dot.';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (parts.some((p) => /[\u0000-\u001f<>:"|?*]/.test(p)))
    return 'The name contains a character file systems do not allow.';
  if (new TextEncoder().encode(name).length > 255) return 'The name is too long (at most 255 bytes).';
  return null;
}

function fileItem(file: RuleFileEntry, selectedId: string | null): HTMLElement {
  const error = fileError(file);
  const link = h(
    'a',
    {
      attrs: {
        href: `/rules/${encodeURIComponent(file.id)}`,
        'data-nav': true,
        'aria-current': file.id === selectedId ? 'page' : null,
        title: file.path,
      },
    },
    h('span', { class: 'name' }, file.name),
    file.is_vars ? h('span', { class: 'tag vars', attrs: { title: 'Variables file' } }, 'vars') : null,
    file.has_draft ? h('span', { class: 'tag draft', attrs: { title: 'Has an unpublished draft' } }, 'draft') : null,
    error ? h('span', { class: 'tag error', attrs: { title: error } }, '⚠ error') : null,
  );
  return h(
    'li',
    { class: error ? 'has-error' : '', attrs: { 'data-file-id': file.id, 'data-path': file.path } },
    link,
    error ? h('p', { class: 'file-error' }, error) : null,
  );
}

/** Renders the tree of `files` with `selectedId` highlighted. */
export function fileTree(files: RuleFileEntry[], selectedId: string | null): HTMLElement {
  const top = files.filter((f) => f.package === null).sort((a, b) => a.path.localeCompare(b.path));
  const packages = [...new Set(files.filter((f) => f.package !== null).map((f) => f.package as string))].sort();
  if (files.length === 0)
    return h('p', { class: 'empty-state' }, 'No rule files yet. Create one below, e.g. invoices.yml.');
  return h(
    'ul',
    { class: 'tree', attrs: { role: 'list' } },
    ...top.map((f) => fileItem(f, selectedId)),
    ...packages.map((pkg) =>
      h(
        'li',
        { class: 'package' },
        h(
          'details',
          { attrs: { open: true } },
          h('summary', {}, h('span', { class: 'folder', attrs: { 'aria-hidden': 'true' } }, '▸'), ` ${pkg}/`),
          h(
            'ul',
            { attrs: { role: 'list' } },
            ...files
              .filter((f) => f.package === pkg)
              .sort((a, b) => a.path.localeCompare(b.path))
              .map((f) => fileItem(f, selectedId)),
          ),
        ),
      ),
    ),
  );
}

/** The "new file" form; calls `onCreated` with the new file's id. */
export function newFileForm(onCreated: (id: string) => void): HTMLElement {
  const input = h('input', {
    attrs: { id: 'new-file-name', placeholder: 'bills.yml', autocomplete: 'off', spellcheck: 'false' },
  });
  const status = h('p', { class: 'status', attrs: { role: 'alert', id: 'new-file-status', hidden: true } });
  const button = h('button', { attrs: { type: 'submit' } }, 'Create');
  const form = h(
    'form',
    { class: 'new-file' },
    h('label', { attrs: { for: 'new-file-name' } }, 'New rule file (name.yml or folder/name.yml)'),
    h('div', { class: 'row' }, input, button),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = withExtension(input.value.trim());
    input.value = name;
    const problem = fileNameProblem(name);
    if (problem) return say(status, problem, 'error');
    say(status, '');
    button.disabled = true;
    request<{ ok: boolean; id: string }>('/api/ui/rules', { json: { filename: name } })
      .then((r) => onCreated(r.id))
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(() => (button.disabled = false));
  });
  return form;
}
