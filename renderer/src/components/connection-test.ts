// "Test connection" on the settings page: tries the dms URL and token as typed, before they are saved.
import { ApiError, errorMessage, request } from '../api.js';
import { onReconnect } from '../connection.js';
import { describeReport, type ConnectionReport } from '../connection-report-text.js';
import { h, say } from '../dom.js';

export { describeReport };

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
      .catch((err: unknown) => {
        say(result, errorMessage(err), 'error');
        // "The service cannot be reached" is about this page's link, not the dms: it goes once the service is back.
        if (!(err instanceof ApiError && err.status === 0)) return;
        const stop = onReconnect(() => {
          stop();
          if (result.textContent === errorMessage(err)) say(result, '');
        });
      })
      .finally(() => (button.disabled = false));
  });
  return h('div', { class: 'connection-test' }, h('h3', {}, 'Test the URL and token typed above'), button, result);
}
