import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { compileSchedule } from '../../../../server/engine/schedule.js';
import { createMemoryLogger } from '../../../../server/log.js';
import { createScheduleService, type ScheduledRule } from '../../../../server/runs/schedules/schedule-service.js';
import { tempDir } from '../../../helpers/temp-dir.js';

/** A rig with a hand-moved clock, a job starter that records, and timers that never fire on their own. */
function rig(options: { dir?: string; rules?: ScheduledRule[] } = {}) {
  const dir = options.dir ?? tempDir('schedules-');
  let clock = new Date(2026, 2, 2, 5, 0);
  const started: Array<{ ruleId: string; dryRun: boolean; at: Date }> = [];
  const active = new Set<number>();
  const timers: number[] = [];
  let rules = options.rules ?? [{ ruleId: 'nightly', schedule: compileSchedule({ daily: '06:00' }, []) }];
  const logger = createMemoryLogger();
  const service = createScheduleService({
    rules: () => rules,
    startJob: (ruleId, dryRun) => {
      started.push({ ruleId, dryRun, at: clock });
      active.add(started.length);
      return started.length;
    },
    jobActive: (id) => active.has(id),
    stateFile: path.join(dir, 'schedules.json'),
    logger,
    now: () => clock,
    setTimer: (_fire, ms) => {
      timers.push(ms);
      return () => undefined;
    },
  });
  return {
    dir,
    service,
    started,
    active,
    timers,
    logger,
    setRules: (r: ScheduledRule[]) => (rules = r),
    at: async (d: Date) => {
      clock = d;
      await service.tick();
    },
  };
}

test('a daily schedule runs once when its time comes, not before and not twice', async () => {
  const r = rig();
  await r.service.start();
  assert.equal(r.started.length, 0, 'adding a schedule must not run it at once');
  assert.equal(r.service.list()[0].next_run, new Date(2026, 2, 2, 6, 0).toISOString());
  assert.equal(r.timers.at(-1), 60_000, 'the timer waits at most a minute');
  await r.at(new Date(2026, 2, 2, 5, 59));
  assert.equal(r.started.length, 0);
  await r.at(new Date(2026, 2, 2, 6, 0, 5));
  await r.at(new Date(2026, 2, 2, 6, 1));
  assert.deepEqual(
    r.started.map((s) => s.ruleId),
    ['nightly'],
  );
  const [entry] = r.service.list();
  assert.equal(entry.last_event_id, 1);
  assert.equal(entry.next_run, new Date(2026, 2, 3, 6, 0).toISOString());
  assert.equal(entry.schedule, 'daily at 06:00');
});

test('a run that falls due while the previous job is still going is skipped, and the next one runs', async () => {
  const r = rig();
  await r.service.start();
  await r.at(new Date(2026, 2, 2, 6, 0));
  assert.equal(r.started.length, 1);
  await r.at(new Date(2026, 2, 3, 6, 0));
  assert.equal(r.started.length, 1, 'event 1 is still running');
  assert.equal(r.service.list()[0].last_skipped, new Date(2026, 2, 3, 6, 0).toISOString());
  assert.ok(r.logger.lines.some((l) => l.includes('skipped the run of rule nightly')));
  r.active.delete(1);
  await r.at(new Date(2026, 2, 3, 6, 30));
  assert.equal(r.started.length, 1, 'a skipped run is not made up when the previous job ends');
  await r.at(new Date(2026, 2, 4, 6, 0));
  assert.equal(r.started.length, 2);
});

test('after downtime the missed runs are caught up once, from the state kept in the data dir', async () => {
  const first = rig();
  await first.service.start();
  await first.at(new Date(2026, 2, 2, 6, 0));
  await first.service.stop();
  assert.equal(first.started.length, 1);
  const saved = JSON.parse(readFileSync(path.join(first.dir, 'schedules.json'), 'utf8')) as Record<
    string,
    { last_run: string }
  >;
  assert.equal(saved.nightly.last_run, new Date(2026, 2, 2, 6, 0).toISOString());

  // Down for three days and a half: three runs were missed; one is made up at start.
  const second = rig({ dir: first.dir });
  await second.at(new Date(2026, 2, 5, 18, 0));
  assert.equal(second.started.length, 0, 'nothing runs before start() has read the state');
  await second.service.start();
  assert.equal(second.started.length, 1);
  await second.at(new Date(2026, 2, 5, 19, 0));
  assert.equal(second.started.length, 1);
  assert.equal(second.service.list()[0].next_run, new Date(2026, 2, 6, 6, 0).toISOString());
});

test('a changed schedule counts afresh; a removed one is forgotten; dry_run reaches the job', async () => {
  const r = rig();
  await r.service.start();
  r.setRules([{ ruleId: 'nightly', schedule: compileSchedule({ cron: '30 5 * * *', dry_run: true }, []) }]);
  await r.at(new Date(2026, 2, 2, 5, 20));
  assert.equal(r.started.length, 0);
  await r.at(new Date(2026, 2, 2, 5, 30));
  assert.deepEqual(
    r.started.map((s) => [s.ruleId, s.dryRun]),
    [['nightly', true]],
  );
  r.setRules([]);
  await r.at(new Date(2026, 2, 2, 5, 31));
  assert.deepEqual(r.service.list(), []);
  assert.deepEqual(JSON.parse(readFileSync(path.join(r.dir, 'schedules.json'), 'utf8')), {});
});

test('an unreadable state file is moved aside, never overwritten', async () => {
  const dir = tempDir('schedules-');
  writeFileSync(path.join(dir, 'schedules.json'), '{ not json');
  const r = rig({ dir });
  await r.service.start();
  assert.equal(readFileSync(path.join(dir, 'schedules.json.unreadable'), 'utf8'), '{ not json');
  assert.ok(existsSync(path.join(dir, 'schedules.json')));
  assert.ok(r.logger.lines.some((l) => l.includes('could not be read')));
});
