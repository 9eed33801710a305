// The dms connection as the service sees it (from /api/health): Paperless version, API version, what the token may not view.
import { errorMessage, request } from '../api.js';
import { dmsStatusLines, type StatusLine } from '../dms-status-text.js';
import { h } from '../dom.js';
import type { DmsHealth } from '../types.js';
import { DMS_BACK_EVENT } from './shell.js';

const CLASSES: Record<StatusLine['kind'], string> = {
  ok: '',
  error: 'error-box',
  warning: 'banner',
  note: 'muted small',
};

/** A block that fills itself once the health answer arrives, and again when the dms answers after a failure. */
export function dmsConnectionStatus(): HTMLElement {
  const block = h('div', { class: 'dms-status', attrs: { id: 'dms-status' } });
  fill(block);
  const onBack = (): void => {
    if (!block.isConnected) return document.removeEventListener(DMS_BACK_EVENT, onBack);
    fill(block);
  };
  document.addEventListener(DMS_BACK_EVENT, onBack);
  return block;
}

function fill(block: HTMLElement): void {
  request<{ dms: DmsHealth }>('/api/health')
    .then((health) => {
      block.replaceChildren();
      for (const line of dmsStatusLines(health.dms)) {
        block.append(
          h(
            'p',
            { class: CLASSES[line.kind], attrs: { id: line.id, role: line.kind === 'error' ? 'alert' : null } },
            line.text,
          ),
        );
      }
    })
    .catch((err: unknown) =>
      block.replaceChildren(h('p', { class: 'error-box' }, `Cannot read the dms status: ${errorMessage(err)}`)),
    );
}
