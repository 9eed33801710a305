// What the settings page says about the dms connection, as plain lines (pure, so it is unit-tested).
import type { DmsHealth } from './types.js';

export interface StatusLine {
  id: 'dms-status-version' | 'dms-status-error' | 'dms-status-forbidden' | 'dms-status-supported' | 'dms-status-release';
  kind: 'ok' | 'error' | 'warning' | 'note';
  text: string;
}

const KIND_LABELS: Record<string, string> = {
  tags: 'tags',
  correspondents: 'correspondents',
  document_types: 'document types',
  storage_paths: 'storage paths',
  custom_fields: 'custom fields',
};

export function dmsStatusLines(dms: DmsHealth): StatusLine[] {
  const lines: StatusLine[] = [];
  if (dms.reachable) {
    const api = dms.api_version ? ` (API version ${dms.api_version})` : '';
    lines.push({ id: 'dms-status-version', kind: 'ok', text: `Connected to Paperless-ngx ${dms.version ?? '(version not reported)'}${api}.` });
  } else {
    lines.push({ id: 'dms-status-error', kind: 'error', text: `Not connected: ${dms.error ?? 'the dms does not answer.'}` });
  }
  if (dms.forbidden.length > 0) {
    const names = dms.forbidden.map((f) => `${KIND_LABELS[f.kind] ?? f.kind} (${f.permission})`).join(', ');
    lines.push({
      id: 'dms-status-forbidden',
      kind: 'warning',
      text: `The token may not view ${names}: rules that use them fail with a trace that says so. Grant the permission in Paperless to use them.`,
    });
  }
  if (dms.reachable && dms.release_group && (dms.release_differences ?? []).length > 0) {
    lines.push({ id: 'dms-status-release', kind: 'note', text: `For Paperless-ngx ${dms.release_group}: ${(dms.release_differences ?? []).join(' ')}` });
  }
  if (dms.supported_versions) lines.push({ id: 'dms-status-supported', kind: 'note', text: `Supported: Paperless-ngx ${dms.supported_versions}.` });
  return lines;
}
