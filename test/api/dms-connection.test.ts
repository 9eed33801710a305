import { DMS_WORKERS } from '../../server/config.js';
import { releaseQuirks } from '../../server/dms/release.js';
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { call, login, startTestServer, type TestServer } from '../helpers/test-server.js';

/** The dms address health names to a signed-in admin. */
async function dmsUrl(url: string): Promise<string> {
  const health = await call<{ dms: { url: string } }>(url, '/api/health', { cookie: await login(url) });
  return health.body.dms.url;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('without SVC_DMS_URL the service runs the demo dms in process', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('the UI config shows the demo dms address and demo: true', async () => {
    const cookie = await login(server.url);
    const res = await call(server.url, '/api/ui/config', { cookie });
    assert.equal(res.status, 200);
    assert.match(String(res.body.dms_url), /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(res.body.demo, true);
    assert.equal(res.body.dms_url, await dmsUrl(server.url));
  });

  test('health reports the demo dms as reachable', async () => {
    const res = await call(server.url, '/api/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'healthy');
    assert.deepEqual(res.body.dms, { demo: true, reachable: true, not_answering_since: null });
    const signedIn = await call(server.url, '/api/health', { cookie: await login(server.url) });
    assert.deepEqual(signedIn.body.dms, {
      url: (await call<{ dms_url: string }>(server.url, '/api/ui/config', { cookie: await login(server.url) })).body
        .dms_url,
      demo: true,
      reachable: true,
      version: '3.0.5',
      api_version: 10,
      supported_versions: '2.16 to 3.0.x',
      forbidden: [],
      error: null,
      checked_at: (signedIn.body.dms as { checked_at: string }).checked_at,
      not_answering_since: null,
      serves_at_once: DMS_WORKERS.default,
      release_group: '3.0.5+',
      release_differences: [],
    });
  });

  test('the demo dms serves the sample documents and the start-up log says so', async () => {
    const cookie = await login(server.url);
    const doc = await call<{ document: { title: string } }>(server.url, '/api/ui/documents/1', { cookie });
    assert.equal(doc.body.document.title, 'Stromrechnung Januar 2025');
    const schema = await call<{ vocabulary: { dms: { tags: string[] } } }>(server.url, '/api/ui/schema', { cookie });
    assert.ok(schema.body.vocabulary.dms.tags.includes('Posteingang'));
    const url = await dmsUrl(server.url);
    assert.ok(
      server.logs.some((line) => /demo dms/.test(line) && line.includes(url)),
      server.logs.join('\n'),
    );
  });
});

describe('with SVC_DMS_URL the service uses that dms', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());

  test('the UI config shows the configured URL; the public health answer does not', async () => {
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    try {
      const cookie = await login(server.url);
      const config = await call(server.url, '/api/ui/config', { cookie });
      assert.equal(config.body.dms_url, sim.url);
      assert.equal(config.body.demo, false);
      const health = await call(server.url, '/api/health');
      assert.deepEqual(health.body.dms, { demo: false, reachable: true, not_answering_since: null });
      assert.ok(
        !JSON.stringify(health.body).includes(new URL(sim.url).host),
        'health (unauthenticated) must not name the dms',
      );
      const signedIn = await call(server.url, '/api/health', { cookie });
      assert.deepEqual(signedIn.body.dms, {
        url: sim.url,
        demo: false,
        reachable: true,
        version: '3.0.5',
        api_version: 10,
        supported_versions: '2.16 to 3.0.x',
        forbidden: [],
        error: null,
        checked_at: (signedIn.body.dms as { checked_at: string }).checked_at,
        not_answering_since: null,
        serves_at_once: DMS_WORKERS.default,
        release_group: '3.0.5+',
        release_differences: [],
      });
      assert.ok(!server.logs.some((line) => /demo dms/.test(line)));
      assert.ok((sim.counts()['GET /api/documents/'] ?? 0) >= 1, 'the health ping reached the configured dms');
    } finally {
      await server.close();
    }
  });

  test('a wrong dms token makes the dms unreachable, not the service unhealthy', async () => {
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: 'f'.repeat(40) });
    try {
      const health = await call(server.url, '/api/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'healthy');
      assert.equal((health.body.dms as { reachable: boolean }).reachable, false);
    } finally {
      await server.close();
    }
  });

  test('a dms that does not answer leaves health at 200 healthy with reachable: false', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const server = await startTestServer({ SVC_DMS_URL: url, SVC_DMS_TOKEN: 'a'.repeat(40) });
    try {
      const health = await call(server.url, '/api/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'healthy');
      assert.equal((health.body.dms as { reachable: boolean }).reachable, false);
      assert.deepEqual(Object.keys(health.body.dms as object), ['demo', 'reachable', 'not_answering_since']);
      const signedIn = await call(server.url, '/api/health', { cookie: await login(server.url) });
      const dms = signedIn.body.dms as Record<string, unknown>;
      assert.deepEqual(
        { ...dms, error: null },
        {
          url,
          demo: false,
          reachable: false,
          version: null,
          api_version: null,
          supported_versions: '2.16 to 3.0.x',
          forbidden: [],
          error: null,
          checked_at: dms.checked_at,
          not_answering_since: dms.not_answering_since,
          serves_at_once: DMS_WORKERS.default,
          release_group: null,
          release_differences: [],
        },
      );
      assert.ok(
        Date.parse(String(dms.not_answering_since)) <= Date.parse(String(dms.checked_at)),
        'not answering since the first ping',
      );
      assert.match(String(dms.error), /ECONNREFUSED/);
    } finally {
      await server.close();
    }
  });

  test('health pings are cached: repeated calls do not each reach the dms', async () => {
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token });
    try {
      sim.resetCounts();
      for (let i = 0; i < 5; i++) assert.equal((await call(server.url, '/api/health')).status, 200);
      // The start-up ping is still fresh, so at most one more (when the machine was slow) reaches the dms.
      assert.ok((sim.counts()['GET /api/documents/'] ?? 0) <= 1, JSON.stringify(sim.counts()));
    } finally {
      await server.close();
    }
  });
});

describe('health names the Paperless release, its API version and what the token may not view', () => {
  test('a Paperless-ngx 2.20 is spoken to with API version 9', async () => {
    const old = await startSimulator({ profile: '2.20' });
    const server = await startTestServer({ SVC_DMS_URL: old.url, SVC_DMS_TOKEN: old.token });
    try {
      const health = await call(server.url, '/api/health', { cookie: await login(server.url) });
      assert.deepEqual(health.body.dms, {
        url: old.url,
        demo: false,
        reachable: true,
        version: '2.20.11',
        api_version: 9,
        supported_versions: '2.16 to 3.0.x',
        forbidden: [],
        error: null,
        checked_at: (health.body.dms as { checked_at: string }).checked_at,
        not_answering_since: null,
        serves_at_once: DMS_WORKERS.default,
        release_group: '2.19–2.20.12',
        release_differences: releaseQuirks('2.20.11').differences,
      });
      const doc = await call(server.url, '/api/ui/documents/1', { cookie: await login(server.url) });
      assert.equal(doc.status, 200, JSON.stringify(doc.body));
      assert.ok(
        server.logs.some((line) => line.includes(`${old.url} does not accept API version 10; using 9`)),
        server.logs.join('\n'),
      );
    } finally {
      await server.close();
      await old.close();
    }
  });

  test('a Paperless older than 2.16 is unreachable with one error naming its release and the supported range', async () => {
    const ancient = await startSimulator({
      profile: { name: 'before 2.16', release: '2.15.3', apiVersions: [1, 2, 3, 4, 5, 6, 7, 8], defaultApiVersion: 8 },
    });
    const server = await startTestServer({ SVC_DMS_URL: ancient.url, SVC_DMS_TOKEN: ancient.token });
    try {
      const dms = (await call(server.url, '/api/health', { cookie: await login(server.url) })).body.dms as Record<
        string,
        unknown
      >;
      assert.equal(dms.reachable, false);
      assert.equal(dms.version, '2.15.3');
      assert.match(
        String(dms.error),
        /is Paperless-ngx 2\.15\.3 \(its newest API version is 8\), which accepts neither API version 10 nor 9: this service supports Paperless-ngx 2\.16 to 3\.0\.x/,
      );
    } finally {
      await server.close();
      await ancient.close();
    }
  });

  test('a token without view_customfield is reachable and health lists the missing permission', async () => {
    const sim = await startSimulator({
      limitedUser: {
        permissions: [
          'view_document',
          'change_document',
          'view_tag',
          'view_correspondent',
          'view_documenttype',
          'view_storagepath',
          'view_user',
          'view_group',
        ],
      },
    });
    const server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.limitedToken as string });
    try {
      const dms = (await call(server.url, '/api/health', { cookie: await login(server.url) })).body.dms as Record<
        string,
        unknown
      >;
      assert.equal(dms.reachable, true);
      assert.deepEqual(dms.forbidden, [{ kind: 'custom_fields', permission: 'view_customfield' }]);
    } finally {
      await server.close();
      await sim.close();
    }
  });
});

test('closing the service stops the demo dms', async () => {
  const server = await startTestServer();
  const url = await dmsUrl(server.url);
  await server.close();
  await assert.rejects(fetch(`${url}/api/documents/`));
});
