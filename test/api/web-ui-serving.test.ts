import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { rendererRoutes } from '../../server/http/routes/renderer-routes.js';
import { PROJECT_ROOT, RENDERER_DIST_DIR } from '../../server/project-paths.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';

describe('the Web UI is served by the service', () => {
  let server: TestServer;
  before(async () => {
    // `npm test` builds the UI first; a direct run of this file builds it if needed.
    if (!fs.existsSync(path.join(RENDERER_DIST_DIR, 'index.html'))) {
      const build = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'build', 'build-renderer.mjs')], {
        stdio: 'inherit',
      });
      assert.equal(build.status, 0);
    }
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers / with the page under a CSP that forbids inline script and style', async () => {
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 1, 'the page loads a script');
    for (const [tag, body] of scripts) {
      assert.match(tag, /src="\/assets\/app-[A-Z0-9]+\.js"/, 'scripts come from hashed files');
      assert.equal(body.trim(), '', 'no inline script');
    }
    assert.doesNotMatch(html, /<style|style="/, 'no inline style');
  });

  it('serves hashed assets with long-lived caching and the right type', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    assert.ok(js && css);
    for (const [asset, type] of [
      [js, /javascript/],
      [css, /text\/css/],
    ] as const) {
      const res = await fetch(server.url + asset);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', type);
      assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
    }
  });

  it('answers any UI path with the page (the app routes in the browser)', async () => {
    for (const route of ['/rules', '/rules/ZmluYW5jZS9hLnltbA', '/traces?rule_id=x', '/login']) {
      const res = await fetch(server.url + route);
      assert.equal(res.status, 200, route);
      assert.match(await res.text(), /<div id="app"/, route);
    }
  });

  it('keeps /api answers JSON: an unknown endpoint is a JSON 404, never the page', async () => {
    const res = await fetch(`${server.url}/api/no-such-endpoint`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { ok: boolean }).ok, false);
  });

  it('answers a missing asset with a plain 404, not the page', async () => {
    const res = await fetch(`${server.url}/assets/app-OLDHASH.js`);
    assert.equal(res.status, 404);
    assert.doesNotMatch(await res.text(), /<html/i);
  });

  it('says plainly how to build the UI when it has not been built', async () => {
    const app = express();
    app.use(rendererRoutes(path.join(tempDir('dms-rules-no-ui-'), 'missing')));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/rules`);
      assert.equal(res.status, 503);
      assert.match(await res.text(), /npm run build/);
    } finally {
      listener.close();
    }
  });
});
