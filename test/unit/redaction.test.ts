import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact, registerSecrets } from '../../server/redaction.js';

test('redacts a registered secret whole, URL-encoded, base64, JSON-escaped and cut short', () => {
  const secret = 'abc/def+ghi"jkl0123';
  const forget = registerSecrets(() => [secret]);
  try {
    for (const form of [
      secret,
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64'),
      JSON.stringify(secret).slice(1, -1),
      secret.slice(0, 10),
    ]) {
      const out = redact(`echo: ${form} end`);
      assert.ok(!out.includes(form), `${form} → ${out}`);
      assert.match(out, /\[redacted\]/);
    }
  } finally {
    forget();
  }
  assert.equal(redact(`echo: ${secret}`), `echo: ${secret}`, 'forgotten once removed');
});

test('redacts any Authorization value, known or not, but leaves plain words readable', () => {
  assert.equal(redact('sent Token 0123456789abcdef0123'), 'sent Token [redacted]');
  assert.equal(redact('Authorization: Bearer%20eyJhbGciOi.x.y1'), 'Authorization: Bearer%20[redacted]');
  assert.equal(redact('Basic dXNlcjpwYXNzd29yZA=='), 'Basic [redacted]');
  assert.equal(
    redact('Invalid token header. No credentials provided.'),
    'Invalid token header. No credentials provided.',
  );
  assert.equal(redact('WWW-Authenticate: Bearer realm="api"'), 'WWW-Authenticate: Bearer realm="api"');
});

test('reads the secrets at each use (a token changed in the settings is redacted at once)', () => {
  const config = { token: 'first-token-value' as string | null };
  const forget = registerSecrets(() => [config.token]);
  try {
    config.token = 'second-token-value';
    assert.equal(redact('x second-token-value'), 'x [redacted]');
    config.token = null;
    assert.equal(redact('short'), 'short');
  } finally {
    forget();
  }
});
