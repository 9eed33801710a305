import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import type { ScheduleEntry } from '../../server/runs/schedules/schedule-service.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';

const RULES = `
rules:
  - id: nightly-mark
    on: [manual]
    when: { document_type: Rechnung }
    actions:
      - add_tags: [rules-processed]
    schedule: { daily: "03:15", dry_run: true }
  - id: unscheduled
    actions:
      - add_note: hello
`;

describe('scheduled rules', () => {
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let server: TestServer;
  before(async () => {
    sim = await startSimulator();
    const rulesDir = tempDir('dms-rules-sched-rules-');
    const dataDir = tempDir('dms-rules-sched-data-');
    fs.writeFileSync(path.join(rulesDir, 'nightly.yml'), RULES);
    // The service was last running long ago: the run missed meanwhile is caught up once at start.
    const since = new Date(Date.now() - 3 * 86_400_000).toISOString();
    fs.writeFileSync(
      path.join(dataDir, 'schedules.json'),
      JSON.stringify({
        'nightly-mark': { pattern: '15 3 * * *', since, last_run: since, last_event_id: null, last_skipped: null },
      }),
    );
    server = await startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { rulesDir, dataDir });
  });
  after(async () => {
    await server?.close();
    await sim?.close();
  });

  it('lists each scheduled rule with its next run, and needs a session or token', async () => {
    const res = await call<{ schedules: ScheduleEntry[] }>(server.url, '/api/schedules', { token: API_TOKEN });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.schedules.map((s) => [s.rule_id, s.schedule, s.dry_run]),
      [['nightly-mark', 'daily at 03:15', true]],
    );
    const next = new Date(res.body.schedules[0].next_run as string);
    assert.ok(
      next.getTime() > Date.now() && next.getTime() <= Date.now() + 86_400_000,
      `next run ${next.toISOString()} is within a day`,
    );
    assert.equal((await call(server.url, '/api/schedules')).status, 401);
  });

  it('catches up the missed run at start as one background job with traces', async () => {
    const [entry] = (await call<{ schedules: ScheduleEntry[] }>(server.url, '/api/schedules', { token: API_TOKEN }))
      .body.schedules;
    assert.equal(typeof entry.last_event_id, 'number');
    const event = await waitForEvent(server.url, entry.last_event_id as number);
    assert.equal(event.kind, 'job');
    assert.equal(event.rule_id, 'nightly-mark');
    assert.equal(event.status, 'done');
    assert.equal(event.dry_run, true);
    const traces = (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${event.event_id}&limit=1000`, {
        token: API_TOKEN,
      })
    ).body.traces;
    assert.ok(traces.length > 0 && traces.every((t) => t.rule_id === 'nightly-mark' && t.source === 'job'));
    assert.ok(traces.some((t) => t.status === 'matched'));
    const events = (
      await call<{ events: Array<{ rule_id: string | null }> }>(server.url, '/api/events', { token: API_TOKEN })
    ).body.events;
    assert.equal(events.filter((e) => e.rule_id === 'nightly-mark').length, 1, 'three missed nights make one run');
  });
});
