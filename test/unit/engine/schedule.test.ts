import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRule, compileSchedule, nextRunAfter, RuleCompileError } from '../../../server/engine/engine.js';

test('daily at a time becomes a cron pattern and fires the next day once the time has passed', () => {
  const s = compileSchedule({ daily: '6:30' }, ['schedule']);
  assert.equal(s.description, 'daily at 06:30');
  assert.equal(s.dryRun, false);
  const after = new Date(2026, 0, 1, 7, 0);
  assert.deepEqual(nextRunAfter(s, after), new Date(2026, 0, 2, 6, 30));
  assert.deepEqual(nextRunAfter(s, new Date(2026, 0, 1, 6, 0)), new Date(2026, 0, 1, 6, 30));
});

test('a cron schedule on weekdays skips the weekend', () => {
  const s = compileSchedule({ cron: '0 6 * * 1-5', dry_run: true }, ['schedule']);
  assert.equal(s.dryRun, true);
  // 2026-01-02 is a Friday: the next run after its 06:00 is Monday the 5th.
  assert.deepEqual(nextRunAfter(s, new Date(2026, 0, 2, 6, 0)), new Date(2026, 0, 5, 6, 0));
});

test('bad schedules are refused with the path and an example', () => {
  const cases: Array<[unknown, string, string]> = [
    [{ daily: '25:00' }, 'schedule.daily', 'time of day'],
    [{ cron: '* * * * * *' }, 'schedule.cron', 'five fields'],
    [{ cron: '61 * * * *' }, 'schedule.cron', 'invalid cron expression'],
    [{ daily: '06:00', cron: '0 6 * * *' }, 'schedule', 'exactly one'],
    [{}, 'schedule', 'exactly one'],
  ];
  for (const [schedule, path, text] of cases) {
    assert.throws(
      () => compileRule({ id: 'r', schedule } as never),
      (err: unknown) => err instanceof RuleCompileError && err.message.includes(text) && err.path.join('.') === path,
      JSON.stringify(schedule),
    );
  }
});

test('a rule without schedule compiles to schedule null', () => {
  assert.equal(compileRule({ id: 'r' }).schedule, null);
  assert.equal(compileRule({ id: 'r', schedule: { cron: '*/15 * * * *' } }).schedule?.pattern, '*/15 * * * *');
});
