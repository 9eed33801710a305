// In demo mode a rule naming a tag the demo dms lacks is refused like anywhere else, but the demo has no Paperless
// screens to add it in: the problem offers to create the name there (POST /api/ui/demo/names).
import { errorMessage, request } from '../api.js';
import { h } from '../dom.js';

const KINDS: Record<string, string> = {
  tag: 'tags',
  correspondent: 'correspondents',
  'document type': 'document_types',
};

/** The kind and name of a "the dms has no tag "urgent"" problem, when it is one the demo dms can create. */
export function missingName(message: string): { label: string; kind: string; name: string } | null {
  const m = /the dms has no (tag|correspondent|document type) "([^"]+)"/.exec(message);
  return m ? { label: m[1], kind: KINDS[m[1]], name: m[2] } : null;
}

/** A button "Create tag “urgent” in the demo dms" for that problem; `created` runs after the name exists. */
export function demoNameFix(message: string, created: (note: string) => void): HTMLElement | null {
  const missing = missingName(message);
  if (!missing) return null;
  const button = h(
    'button',
    { class: 'link demo-name-fix', attrs: { type: 'button' } },
    `Create ${missing.label} “${missing.name}” in the demo dms`,
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    request('/api/ui/demo/names', { method: 'POST', json: { kind: missing.kind, name: missing.name } })
      .then(() => created(`Created ${missing.label} “${missing.name}” in the demo dms.`))
      .catch((err: unknown) => {
        button.replaceWith(h('span', { class: 'error-text', attrs: { role: 'alert' } }, errorMessage(err)));
      });
  });
  return button;
}
