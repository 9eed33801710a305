// For `_vars.yml`: the YAML as the service renders it (templates filled in), refreshed while typing.
import { errorMessage, request } from '../api.js';
import { h } from '../dom.js';

const DEBOUNCE_MS = 400;

export interface VarsPreview {
  element: HTMLElement;
  update(content: string): void;
  stop(): void;
}

export function varsPreview(fileId: string): VarsPreview {
  const output = h('pre', {
    class: 'vars-output',
    attrs: { id: 'vars-preview', tabindex: 0, 'aria-label': 'Rendered variables' },
  });
  const status = h('p', { class: 'muted small', attrs: { 'aria-live': 'polite' } });
  let timer: number | undefined;
  let seq = 0;

  async function refresh(content: string): Promise<void> {
    const mine = ++seq;
    status.textContent = 'Rendering…';
    try {
      const r = await request<{ ok: boolean; result: string }>(`/api/ui/rules/${encodeURIComponent(fileId)}/preview`, {
        method: 'POST',
        text: content,
      });
      if (mine !== seq) return;
      output.textContent = r.result === '' ? '# (no variables)' : r.result;
      output.classList.remove('stale');
      status.textContent = `Rendered at ${new Date().toLocaleTimeString()}`;
    } catch (err) {
      if (mine !== seq) return;
      output.classList.add('stale');
      status.textContent = `Cannot render: ${errorMessage(err)}`;
    }
  }

  return {
    element: h(
      'section',
      { class: 'vars-panel', attrs: { 'aria-labelledby': 'vars-title' } },
      h('h2', { attrs: { id: 'vars-title' } }, 'Rendered variables'),
      h('p', { class: 'muted small' }, 'What rules see as vars: string values are templates, rendered at load.'),
      output,
      status,
    ),
    update(content) {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void refresh(content), DEBOUNCE_MS);
    },
    stop() {
      window.clearTimeout(timer);
    },
  };
}
