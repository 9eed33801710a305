import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_LIST_PAGES } from '../../server/dms/list-walk.js';
import type { EventRecord } from '../../server/history/event-types.js';
import {
  startHostilePaperless,
  startServiceAgainst,
  type HostilePaperless,
  type ListLie,
} from '../helpers/hostile-paperless.js';
import { API_TOKEN, call, type TestServer } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';

// Bounded reads: a dms that lies about its lists ends the job, the catch-up or the
// run with an error naming its answer, and the service stays up. Before the fix, `count: 5e9` queued ten million
// page requests at once (out of memory) and a never-ending `next` on the tag list was followed without end.

async function withLyingDms(
  lies: Record<string, ListLie>,
  env: Record<string, string>,
  body: (server: TestServer, fake: HostilePaperless) => Promise<void>,
) {
  const fake = await startHostilePaperless({ lies });
  const server = await startServiceAgainst(fake, env);
  try {
    await body(server, fake);
  } finally {
    await server.close();
    await fake.close();
  }
}

async function healthAnswers(server: TestServer): Promise<void> {
  const health = await call(server.url, '/api/health');
  assert.equal(health.status, 200, JSON.stringify(health.body));
  assert.equal(health.body.status, 'healthy');
}

async function runJob(server: TestServer): Promise<EventRecord> {
  const res = await call(server.url, '/api/run?rule_id=retitle', { method: 'POST', token: API_TOKEN });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return waitForEvent(server.url, res.body.event_id as number);
}

async function firstCatchUp(server: TestServer): Promise<EventRecord> {
  for (let tries = 0; tries < 1200; tries++) {
    const { body } = await call<{ events: EventRecord[] }>(server.url, '/api/events?kind=catchup', {
      token: API_TOKEN,
    });
    if (body.events[0]) return waitForEvent(server.url, body.events[0].event_id);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no catch-up event after the start');
}

describe('a dms that lies about its lists (bounded reads)', () => {
  it('ends a job over a document list claiming count 5e9 with an error naming the count', async () => {
    await withLyingDms({ '/api/documents/': { count: 5e9 } }, {}, async (server, fake) => {
      const job = await runJob(server);
      assert.equal(job.status, 'failed');
      assert.match(
        job.error ?? '',
        /The job stopped: the dms said count 5000000000 for page 1 of GET \/api\/documents\//,
      );
      assert.equal(fake.highestPage('/api/documents/'), 1, 'no page beyond the count probe was asked for');
      await healthAnswers(server);
    });
  });

  it('ends the catch-up at start over the same lie, and health still answers', async () => {
    await withLyingDms(
      { '/api/documents/': { count: 5e9 } },
      { SVC_CATCH_UP_FROM: '2000-01-01T00:00:00Z' },
      async (server) => {
        const catchUp = await firstCatchUp(server);
        assert.equal(catchUp.status, 'failed');
        assert.match(catchUp.error ?? '', /The catch-up could not read the dms: the dms said count 5000000000/);
        await healthAnswers(server);
        const health = await call<{ arrival: { catch_up_error: string | null; catch_up_retry_at: string | null } }>(
          server.url,
          '/api/health',
          { token: API_TOKEN },
        );
        assert.match(
          health.body.arrival.catch_up_error ?? '',
          /count 5000000000/,
          'health names the lie the catch-up stopped at',
        );
        assert.ok(health.body.arrival.catch_up_retry_at, 'and when it tries again');
      },
    );
  });

  it('ends a job whose tag list never ends after the page cap, naming it', async () => {
    await withLyingDms({ '/api/tags/': { next: 'endless' } }, {}, async (server, fake) => {
      const job = await runJob(server);
      assert.equal(job.status, 'failed');
      assert.match(
        job.error ?? '',
        new RegExp(`still named a next page after ${MAX_LIST_PAGES} pages of GET /api/tags/`),
      );
      assert.ok(fake.highestPage('/api/tags/') <= MAX_LIST_PAGES);
      await healthAnswers(server);
    });
  });

  it('refuses a vocabulary load whose next link points at another host (a single run answers 502 naming it)', async () => {
    await withLyingDms({ '/api/correspondents/': { next: 'foreign' } }, {}, async (server, fake) => {
      const run = await call(server.url, '/api/run?rule_id=retitle&document=1&dry_run=true', {
        method: 'POST',
        token: API_TOKEN,
      });
      assert.equal(run.status, 502, JSON.stringify(run.body));
      assert.match(
        String(run.body.error),
        /next link on page 1 of GET \/api\/correspondents\/ is http:\/\/evil\.example:9\/steal/,
      );
      assert.equal(fake.highestPage('/api/correspondents/'), 1);
      await healthAnswers(server);
    });
  });

  it('refuses a document page longer than the page size asked for', async () => {
    await withLyingDms({ '/api/documents/': { count: 3, overlong: true } }, {}, async (server) => {
      const job = await runJob(server);
      assert.equal(job.status, 'failed');
      assert.match(job.error ?? '', /items on page 1 of GET \/api\/documents\/ for a page size of/);
      await healthAnswers(server);
    });
  });
});
