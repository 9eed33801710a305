import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, login, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';

/** Sends the path byte for byte (fetch would normalise `..` and `%2e%2e` before sending). */
function rawRequest(
  base: string,
  rawPath: string,
  method: string,
  cookie: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: rawPath,
        method,
        headers: { cookie, 'content-type': 'application/yaml' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');
const OUTSIDE_CONTENT = 'rules:\n  - id: outside-secret\n';

describe('rule file ids and names cannot leave the rules dir', () => {
  let server: TestServer;
  let cookie: string;
  // The rules dir lives inside a parent that also holds files the API must never reach.
  const parent = tempDir('dms-rules-traversal-');
  const rulesDir = path.join(parent, 'rules');
  const outsideDir = path.join(parent, 'outside');
  const outsideFile = path.join(outsideDir, 'secret.yml');

  before(async () => {
    fs.mkdirSync(rulesDir);
    fs.mkdirSync(outsideDir);
    fs.writeFileSync(outsideFile, OUTSIDE_CONTENT);
    fs.writeFileSync(path.join(parent, 'outside.yml'), OUTSIDE_CONTENT);
    fs.writeFileSync(path.join(rulesDir, 'mine.yml'), 'rules:\n  - id: mine\n');
    fs.symlinkSync(outsideFile, path.join(rulesDir, 'leak.yml'));
    fs.symlinkSync(outsideDir, path.join(rulesDir, 'linked'));
    fs.symlinkSync(path.join(rulesDir, 'mine.yml'), path.join(rulesDir, 'alias.yml'));
    server = await startTestServer({}, { rulesDir });
    cookie = await login(server.url);
  });
  after(() => server.close());

  const untouched = () => {
    assert.equal(fs.readFileSync(outsideFile, 'utf8'), OUTSIDE_CONTENT);
    assert.equal(fs.readFileSync(path.join(parent, 'outside.yml'), 'utf8'), OUTSIDE_CONTENT);
    assert.deepEqual(fs.readdirSync(outsideDir), ['secret.yml']);
  };

  it('lists neither symlinks leading outside nor what they point to, and loads none of it', async () => {
    const res = await call<{ files: Array<{ path: string }>; loaded: Record<string, unknown> }>(
      server.url,
      '/api/ui/rules',
      { cookie },
    );
    const paths = res.body.files.map((f) => f.path);
    assert.deepEqual(
      paths,
      ['alias.yml', 'mine.yml'],
      'a symlink inside the dir is fine; leak.yml and linked/ are not',
    );
    assert.ok(!('outside-secret' in res.body.loaded));
  });

  const table: Array<[string, string]> = [
    ['plain ..', '..'],
    ['percent-encoded ..', '%2e%2e'],
    ['upper-case percent-encoded ..', '%2E%2E'],
    ['encoded slashes', '..%2F..%2Foutside.yml'],
    ['encoded backslashes', '..%5C..%5Coutside.yml'],
    ['absolute path', '%2Fetc%2Fpasswd'],
    ['base64url of ../outside.yml', b64('../outside.yml')],
    ['base64url of ../outside/secret.yml', b64('../outside/secret.yml')],
    ['base64url of an absolute path', b64(path.join(parent, 'outside.yml'))],
    ['base64url of a symlink leading outside', b64('leak.yml')],
    ['base64url through a symlinked folder', b64('linked/secret.yml')],
    ['base64url with a NUL byte', b64('mine.yml\u0000.yml')],
  ];
  for (const [label, id] of table) {
    it(`refuses ${label} on every file route without touching files outside`, async () => {
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['GET', '?draft=true', undefined],
        ['PUT', '', 'rules: []\n'],
        ['PUT', '?draft=true', 'rules: []\n'],
        ['DELETE', '', undefined],
        ['POST', '/preview', 'a: 1\n'],
      ] as const) {
        const res = await rawRequest(server.url, `/api/ui/rules/${id}${suffix}`, method, cookie, body);
        assert.ok(res.status === 404 || res.status === 400, `${method} ${id}${suffix}: ${res.status} ${res.body}`);
        assert.ok(!res.body.includes('outside-secret'), 'no content from outside leaks');
        assert.match(res.body, /"ok":false/);
      }
      untouched();
    });
  }

  it('refuses file names that would create files outside', async () => {
    for (const filename of [
      '../outside.yml',
      '../outside/new.yml',
      path.join(outsideDir, 'abs.yml'),
      'linked/new.yml',
      'a/../../x.yml',
      '..%2Fx.yml',
    ]) {
      const res = await call(server.url, '/api/ui/rules', { cookie, body: { filename } });
      assert.equal(res.status, 400, `${filename}: ${JSON.stringify(res.body)}`);
    }
    untouched();
    assert.ok(!fs.existsSync(path.join(parent, 'x.yml')));
  });

  it('serves a symlink that stays inside the rules dir', async () => {
    const res = await call(server.url, `/api/ui/rules/${b64('alias.yml')}`, { cookie });
    assert.equal(res.status, 200);
    assert.equal(res.body.content, 'rules:\n  - id: mine\n');
  });
});
