// "Test connection" on the settings page: tries the dms URL and token as typed, before they are saved.
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';

interface ConnectionReport {
  ok: boolean;
  url: string;
  version?: string;
  error?: string;
  visible?: Record<string, number>;
  vocabulary_error?: string;
  /** Further facts the dms client learns to report (permissions, …) are shown as they come. */
  [fact: string]: unknown;
}

const KNOWN = new Set(['ok', 'url', 'version', 'error', 'visible', 'vocabulary_error']);

/** One line per finding, in words. */
export function describeReport(r: ConnectionReport): string[] {
  if (!r.ok) {
    // Paperless answering 401/403 is reachable: the token is what is wrong.
    if (/\b40[13]\b|token|authenticat|permission/i.test(r.error ?? '')) return [`Reachable at ${r.url}, but the token was refused: ${r.error}`];
    return [`Not reachable at ${r.url}: ${r.error ?? 'no answer'}`];
  }
  const lines = [`Reachable at ${r.url}${r.version ? `: Paperless-ngx ${r.version}` : ''}.`];
  if (r.visible) {
    const parts = Object.entries(r.visible).map(([kind, n]) => `${n} ${kind.replace(/_/g, ' ')}`);
    lines.push(`The token may see ${parts.join(', ')}.`);
  }
  if (r.vocabulary_error) lines.push(`The names could not be read: ${r.vocabulary_error}`);
  for (const [fact, value] of Object.entries(r)) {
    if (KNOWN.has(fact) || value === undefined || value === null) continue;
    lines.push(`${fact.replace(/_/g, ' ')}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  }
  return lines;
}

/** Tries a dms URL and token as typed (nothing is saved). */
export function testConnection(url: string, token: string): Promise<ConnectionReport> {
  return request<ConnectionReport>('/api/ui/settings/test-dms', { method: 'POST', json: { url, token } });
}

/** The button and its report; `values` reads the form's URL and token fields as they are now. */
export function connectionTest(values: () => { url: string; token: string }): HTMLElement {
  const button = h('button', { attrs: { type: 'button', id: 'test-dms-button' } }, 'Test connection');
  const result = h('div', { class: 'status', attrs: { id: 'test-dms-result', role: 'status', hidden: true } });
  button.addEventListener('click', () => {
    button.disabled = true;
    say(result, 'Testing…');
    const { url, token } = values();
    testConnection(url, token)
      .then((r) => {
        result.replaceChildren(...describeReport(r).map((line) => h('p', {}, line)));
        result.dataset.kind = r.ok ? 'ok' : 'error';
        result.hidden = false;
      })
      .catch((err: unknown) => say(result, errorMessage(err), 'error'))
      .finally(() => (button.disabled = false));
  });
  return h('div', { class: 'connection-test' }, h('h3', {}, 'Test the URL and token typed above'), button, result);
}
