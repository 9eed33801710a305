import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, describeConfig, loadConfig } from '../../server/config.js';
import { parseNotifyTargets } from '../../server/notify-targets.js';
import { tempDir } from '../helpers/temp-dir.js';

test('HTTP and e-mail targets parse with their defaults', () => {
  assert.deepEqual(
    parseNotifyTargets(
      '{"ha": {"url": "http://ha.lan:8123/api/webhook/x"}, "mail": {"smtp": "smtps://u:p@mail.lan:465", "from": "a@b.org", "to": "c@d.org"}}',
    ),
    {
      ha: { kind: 'http', url: 'http://ha.lan:8123/api/webhook/x', format: 'json', headers: {} },
      mail: {
        kind: 'email',
        smtp: 'smtps://u:p@mail.lan:465',
        from: 'a@b.org',
        to: ['c@d.org'],
        attachmentMaxBytes: 10_000_000,
      },
    },
  );
});

test('bad targets are refused with the target and key named', () => {
  const cases: Array<[string, RegExp]> = [
    ['[1]', /must be a mapping of target name/],
    ['{x: {url: "ftp://h/x"}}', /target "x": url must start with http: or https:/],
    ['{x: {url: "http://h", smtp: "smtp://h"}}', /exactly one of url/],
    ['{x: {url: "http://h", format: xml}}', /format is json or text/],
    ['{x: {url: "http://h", token: abc}}', /unknown key "token"/],
    ['{x: {smtp: "smtp://h", from: nobody, to: [a@b.c]}}', /from must be an e-mail address/],
    ['{"a b": {url: "http://h"}}', /names are letters/],
    ['{x: {smtp: "smtp://h", from: a@b.c, to: [a@b.c], attachment_max_mb: 0}}', /attachment_max_mb is a number/],
    ['{x: {url: "http://h", attachment_max_mb: 5}}', /unknown key "attachment_max_mb"/],
  ];
  for (const [raw, message] of cases) assert.throws(() => parseNotifyTargets(raw), message, raw);
});

test('config.yml takes notify_targets as a mapping; the setting is masked like a secret', () => {
  const dataDir = tempDir('notify-config-');
  fs.writeFileSync(
    path.join(dataDir, 'config.yml'),
    'notify_targets:\n  phone:\n    url: https://ntfy.sh/topic\n    format: text\n',
  );
  const config = loadConfig({ env: {}, overrides: { dataDir } });
  assert.deepEqual(config.notifyTargets, {
    phone: { kind: 'http', url: 'https://ntfy.sh/topic', format: 'text', headers: {} },
  });
  assert.equal(describeConfig(config).SVC_NOTIFY_TARGETS, '(set)');
  assert.throws(
    () => loadConfig({ env: { SVC_NOTIFY_TARGETS: '{p: {url: nope}}' }, overrides: { dataDir } }),
    (err: unknown) => err instanceof ConfigError && /^SVC_NOTIFY_TARGETS target "p": url/.test(err.message),
  );
});
