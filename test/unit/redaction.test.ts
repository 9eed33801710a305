import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact, serviceSecrets, targetCredentials } from '../../server/redaction.js';

test('redacts a given secret whole, URL-encoded, base64, JSON-escaped and cut short', () => {
  const secret = 'abc/def+ghi"jkl0123';
  for (const form of [
    secret,
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
    JSON.stringify(secret).slice(1, -1),
    secret.slice(0, 10),
  ]) {
    const out = redact(`echo: ${form} end`, [secret]);
    assert.ok(!out.includes(form), `${form} → ${out}`);
    assert.match(out, /\[redacted\]/);
  }
  assert.equal(redact(`echo: ${secret}`), `echo: ${secret}`, 'only the secrets given are redacted');
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

test("a service's secrets are read from its settings at each use (a token changed there is redacted at once)", () => {
  const config = {
    apiToken: 'first-token-value' as string | null,
    webhookToken: null,
    adminPassword: null,
    dmsToken: null,
    notifyTargets: null,
  };
  const secrets = serviceSecrets(config);
  config.apiToken = 'second-token-value';
  assert.equal(redact('x second-token-value', secrets()), 'x [redacted]');
  config.apiToken = null;
  assert.equal(redact('short', secrets()), 'short');
});

test("another service's secrets are not this one's: nothing is shared between services in one process", () => {
  const one = serviceSecrets({
    apiToken: 'service-one-token',
    webhookToken: null,
    adminPassword: null,
    dmsToken: null,
    notifyTargets: null,
  });
  serviceSecrets({
    apiToken: 'service-two-token',
    webhookToken: null,
    adminPassword: null,
    dmsToken: null,
    notifyTargets: null,
  });
  assert.equal(redact('service-two-token', one()), 'service-two-token');
  assert.equal(redact('service-one-token', one()), '[redacted]');
});

test("a notify target's credentials: URL password, and header and query values named like one", () => {
  const http = targetCredentials({
    kind: 'http',
    url: 'https://user:pa%24%24word@hooks.example/x?token=qtoken123&page=2',
    format: 'json',
    headers: { Authorization: 'Bearer htoken456', 'X-Title': 'plain' },
  });
  for (const secret of ['pa$$word', 'qtoken123', 'Bearer htoken456', 'htoken456'])
    assert.ok(http.includes(secret), secret);
  assert.ok(!http.includes('2') && !http.includes('plain'));
});
