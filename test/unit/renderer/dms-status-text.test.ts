import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dmsProblemText, dmsStatusLines } from '../../../renderer/src/dms-status-text.js';

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
      [
        `Connected to Paperless-ngx 2.20.11 (API version 9). Address: ${HEALTHY.url}`,
        'Supported: Paperless-ngx 2.16 to 3.0.x.',
      ],
    );
  });

  it('says how many requests a run-all keeps at Paperless for the configured web workers', () => {
    assert.equal(
      dmsStatusLines({ ...HEALTHY, serves_at_once: 1 }).find((l) => l.id === 'dms-status-concurrency')?.text,
      'A run-all keeps 2 requests at Paperless at most: one for its one web worker (SVC_DMS_WORKERS) and one waiting, so a click in Paperless waits behind no more of them.',
    );
    assert.match(
      dmsStatusLines({ ...HEALTHY, serves_at_once: 4 }).find((l) => l.id === 'dms-status-concurrency')?.text ?? '',
      /^A run-all keeps 5 requests at Paperless at most: one for each of its 4 web workers \(SVC_DMS_WORKERS\)/,
    );
    for (const unknown of [null, undefined])
      assert.equal(
        dmsStatusLines({ ...HEALTHY, serves_at_once: unknown }).some((l) => l.id === 'dms-status-concurrency'),
        false,
      );
    assert.equal(
      dmsStatusLines({ ...HEALTHY, reachable: false, serves_at_once: 1 }).some(
        (l) => l.id === 'dms-status-concurrency',
      ),
      false,
      'not while the dms does not answer',
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
    assert.match(
      warning?.text ?? '',
      /^The token may not view custom fields \(view_customfield\), storage paths \(view_storagepath\): rules that use them fail/,
    );
  });

  it('shows the error of an unreachable or unsupported dms', () => {
    const lines = dmsStatusLines({
      ...HEALTHY,
      reachable: false,
      version: '2.15.3',
      api_version: null,
      error: 'The dms at http://p is Paperless-ngx 2.15.3 …',
    });
    assert.deepEqual(lines[0], {
      id: 'dms-status-error',
      kind: 'error',
      text: 'Not connected: Paperless at http://p cannot be used: The dms at http://p is Paperless-ngx 2.15.3 …',
    });
  });

  it('says in plain words why the dms cannot be used: refused, not found, not an API, token refused', () => {
    const down = (error: string) => dmsProblemText({ ...HEALTHY, url: 'http://p:8000', reachable: false, error });
    assert.equal(
      down('GET /api/ connect ECONNREFUSED 127.0.0.1:8000 after 4 attempts'),
      'Paperless at http://p:8000 does not answer (connection refused). Is it running, and is the address right?',
    );
    assert.equal(
      down('getaddrinfo ENOTFOUND p'),
      'Paperless at http://p:8000 cannot be found: its host name does not resolve.',
    );
    assert.match(
      down('dms GET /api/ answered 404 Not Found') ?? '',
      /^http:\/\/p:8000 is not a Paperless-ngx API \(it answered 404 Not Found\)/,
    );
    assert.match(down('dms answered 401: Invalid token.') ?? '', /refuses the token/);
    assert.equal(dmsProblemText(HEALTHY), null);
  });

  it('never presents the demo dms as a Paperless-ngx release', () => {
    const lines = dmsStatusLines({ ...HEALTHY, demo: true, version: '3.0.5' });
    assert.equal(lines[0].text, 'Connected to the built-in demo dms: sample documents, changes kept in memory only.');
    assert.ok(lines.every((l) => !l.text.includes('3.0.5')));
  });
});
