import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeReport } from '../../../renderer/src/connection-report-text.js';

describe('"Test connection" in words', () => {
  it('names the release group and what the service does differently for it', () => {
    const lines = describeReport({
      ok: true,
      url: 'http://p',
      version: '2.18.4',
      releaseGroup: '2.16–2.18',
      releaseDifferences: [
        '2.x: the workflow webhook body must use doc_url ({{ doc_id }} exists only from 3.0).',
        'before 2.19: tags have no parents.',
      ],
    });
    assert.deepEqual(lines, [
      'Reachable at http://p: Paperless-ngx 2.18.4.',
      'For Paperless-ngx 2.16–2.18: 2.x: the workflow webhook body must use doc_url ({{ doc_id }} exists only from 3.0). before 2.19: tags have no parents.',
    ]);
  });

  it('says nothing more for a release without differences', () => {
    assert.deepEqual(
      describeReport({ ok: true, url: 'http://p', version: '3.0.5', releaseGroup: '3.0.5+', releaseDifferences: [] }),
      ['Reachable at http://p: Paperless-ngx 3.0.5.'],
    );
  });
});
