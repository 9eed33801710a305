import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dmsStatusLines } from '../../../renderer/src/dms-status-text.js';

const HEALTHY = {
  url: 'http://p',
  demo: false,
  reachable: true,
  version: '2.20.11',
  api_version: 9,
  supported_versions: '2.16 to 3.0.x',
  forbidden: [],
  error: null,
  checked_at: null,
  not_answering_since: null,
};

describe('what the settings page says about the dms', () => {
  it('names the release and the API version in use, then the supported range', () => {
    assert.deepEqual(
      dmsStatusLines(HEALTHY).map((l) => l.text),
      ['Connected to Paperless-ngx 2.20.11 (API version 9).', 'Supported: Paperless-ngx 2.16 to 3.0.x.'],
    );
  });

  it('says what the service does differently for the release group', () => {
    const lines = dmsStatusLines({
      ...HEALTHY,
      release_group: '2.19–2.20.12',
      release_differences: ['2.x: the workflow webhook body must use doc_url ({{ doc_id }} exists only from 3.0).'],
    });
    assert.deepEqual(
      lines.find((l) => l.id === 'dms-status-release')?.text,
      'For Paperless-ngx 2.19–2.20.12: 2.x: the workflow webhook body must use doc_url ({{ doc_id }} exists only from 3.0).',
    );
  });

  it('lists what the token may not view, with the permission to grant', () => {
    const lines = dmsStatusLines({
      ...HEALTHY,
      forbidden: [
        { kind: 'custom_fields', permission: 'view_customfield' },
        { kind: 'storage_paths', permission: 'view_storagepath' },
      ],
    });
    const warning = lines.find((l) => l.id === 'dms-status-forbidden');
    assert.match(warning?.text ?? '', /^The token may not view custom fields \(view_customfield\), storage paths \(view_storagepath\): rules that use them fail/);
  });

  it('shows the error of an unreachable or unsupported dms', () => {
    const lines = dmsStatusLines({ ...HEALTHY, reachable: false, version: '2.15.3', api_version: null, error: 'The dms at http://p is Paperless-ngx 2.15.3 …' });
    assert.deepEqual(lines[0], { id: 'dms-status-error', kind: 'error', text: 'Not connected: The dms at http://p is Paperless-ngx 2.15.3 …' });
  });
});
