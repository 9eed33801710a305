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

  it("says which way the service tells its own changes from a person's, and why", () => {
    const audit = describeReport({
      ok: true,
      url: 'http://p',
      attribution: { mode: 'audit-log', user: 'rules-bot', note: 'Changes by the dms user "rules-bot" …' },
    });
    assert.equal(
      audit.at(-1),
      'Own changes vs a person\'s: by Paperless\'s audit log. Changes by the dms user "rules-bot" …',
    );
    const state = describeReport({
      ok: true,
      url: 'http://p',
      attribution: {
        mode: 'state',
        user: 'anna',
        note: "the dms's audit log is switched off (PAPERLESS_AUDIT_LOG_ENABLED).",
      },
    });
    assert.equal(
      state.at(-1),
      "Own changes vs a person's: by the document state only, because the dms's audit log is switched off (PAPERLESS_AUDIT_LOG_ENABLED).",
    );
    assert.ok(!state.some((line) => line.startsWith('attribution:')), 'not repeated as a raw fact');
  });
});

describe('"Test connection" says the version facts and permissions in words, never as raw keys', () => {
  it('names the API version, the supported releases and that the token may view everything', () => {
    const lines = describeReport({
      ok: true,
      url: 'http://p',
      version: '2.18.4',
      apiVersion: 7,
      serverApiVersion: 9,
      supportedVersions: '2.15–3.x',
      forbidden: [],
    });
    assert.deepEqual(lines, [
      'Reachable at http://p: Paperless-ngx 2.18.4.',
      'The service speaks API version 7 with it (Paperless allows up to 9).',
      'Supported: Paperless-ngx 2.15–3.x.',
      'The token may view everything the rules use.',
    ]);
    assert.ok(lines.every((l) => !/supportedVersions|apiVersion|forbidden:/.test(l)));
  });

  it('names what the token may not view', () => {
    const lines = describeReport({
      ok: true,
      url: 'http://p',
      forbidden: [{ kind: 'custom_fields', permission: 'view_customfield' }],
    });
    assert.equal(
      lines[1],
      'The token may not view custom fields (view_customfield): rules that use them fail with a trace that says so.',
    );
  });
});
