// The dms connection as the service sees it (from /api/health): Paperless version, API version, what the token may not view.
import { errorMessage, request } from '../api.js';
import { h } from '../dom.js';
import type { DmsHealth } from '../types.js';

const KIND_LABELS: Record<string, string> = {
  tags: 'tags',
  correspondents: 'correspondents',
  document_types: 'document types',
  storage_paths: 'storage paths',
  custom_fields: 'custom fields',
};

function describe(dms: DmsHealth): HTMLElement[] {
  const lines: HTMLElement[] = [];
  if (dms.reachable) {
    const api = dms.api_version ? ` (API version ${dms.api_version})` : '';
    lines.push(h('p', { attrs: { id: 'dms-status-version' } }, `Connected to Paperless-ngx ${dms.version ?? '(version not reported)'}${api}.`));
  } else {
    lines.push(h('p', { class: 'error-box', attrs: { role: 'alert', id: 'dms-status-error' } }, `Not connected: ${dms.error ?? 'the dms does not answer.'}`));
  }
  if (dms.forbidden.length > 0) {
    const names = dms.forbidden.map((f) => `${KIND_LABELS[f.kind] ?? f.kind} (${f.permission})`).join(', ');
    lines.push(
      h('p', { class: 'banner', attrs: { id: 'dms-status-forbidden' } }, `The token may not view ${names}: rules that use them fail with a trace that says so. Grant the permission in Paperless to use them.`),
    );
  }
  if (dms.supported_versions) lines.push(h('p', { class: 'muted small' }, `Supported: Paperless-ngx ${dms.supported_versions}.`));
  return lines;
}

/** A block that fills itself once the health answer arrives. */
export function dmsConnectionStatus(): HTMLElement {
  const block = h('div', { class: 'dms-status', attrs: { id: 'dms-status' } });
  request<{ dms: DmsHealth }>('/api/health')
    .then((health) => block.append(...describe(health.dms)))
    .catch((err: unknown) => block.append(h('p', { class: 'error-box' }, `Cannot read the dms status: ${errorMessage(err)}`)));
  return block;
}
