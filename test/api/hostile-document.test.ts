import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import { CONTENT_LIMIT } from '../../server/eval/content-budget.js';
import { API_TOKEN, call, startTestServer, tempDir, type CallResult, type TestServer } from '../helpers/test-server.js';

// Linear (RE2) but slow: a counted repetition over one long run of word characters, extracted with its
// capture groups, takes seconds per 100 KB (so minutes on the megabyte scanned). What a hostile document
// exploits against a plausible rule. The budget is far from both rules' times, so a busy machine changes neither outcome.
const RULES = `rules:
  - id: slow-scan
    extract:
      tail: { regex: '(\\w+\\s?){1,100}$' }
    actions:
      - set_title: "{{ tail }}"
  - id: quick-title
    when: { title: { contains: Hostile } }
    actions:
      - set_title: Hostile document (checked)
`;

describe('a hostile 5 MB document', () => {
  let sim: Simulator;
  let server: TestServer;
  let hostile: number;
  let small: number;
  let hostileRun: CallResult<{ traces: Trace[] }>;
  const healthAnswers: number[] = [];
  const run = (document: number) =>
    call<{ traces: Trace[] }>(server.url, `/api/run?document=${document}`, { method: 'POST', token: API_TOKEN });

  before(async () => {
    sim = await startSimulator({ seedDocuments: false });
    hostile = sim.addDocument({ title: 'Hostile scan', content: `${'a'.repeat(5_000_000)}.` }).id;
    small = sim.addDocument({ title: 'Short note', content: 'nothing to see' }).id;
    const rulesDir = tempDir('dms-rules-hostile-');
    fs.writeFileSync(path.join(rulesDir, 'hostile.yml'), RULES);
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_EVAL_WORKERS: '2', SVC_EVAL_BUDGET_MS: '1500' },
      { rulesDir },
    );
    // The hostile document is evaluated once, to its budget, with /api/health polled meanwhile: each test
    // below reads its own facts off this one run (a run costs the whole budget in CPU).
    // A first run loads the vocabulary, so the hostile run spends its time evaluating, not fetching.
    assert.equal((await run(small)).status, 200);
    let done = false;
    const polling = (async () => {
      while (!done) {
        const res = await call(server.url, '/api/health');
        assert.equal(res.status, 200);
        healthAnswers.push(Date.now());
        // A pause between polls leaves the CPU to the worker; dozens of polls still fall inside the run.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    hostileRun = await run(hostile);
    done = true;
    await polling;
  });
  after(async () => {
    await server.close();
    await sim.close();
  });

  it('is evaluated off the main thread: /api/health answers while the evaluation is in flight', async () => {
    const res = hostileRun;
    const answers = healthAnswers;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const trace = res.body.traces.find((t) => t.rule_id === 'slow-scan') as Trace;
    // The trace covers context, evaluation and planning. This test shares the server's thread: had the
    // evaluation blocked it, no health answer could have been received inside that window.
    const end = Date.parse(trace.at);
    const start = end - trace.duration_ms;
    const during = answers.filter((t) => t > start && t < end);
    assert.ok(
      during.length > 0,
      `health answered ${answers.length} times, none while the document was evaluated (${start}–${end})`,
    );
  });

  it('stops the rule that overran its budget with a timeout trace, and runs the others', async () => {
    const res = hostileRun;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const slow = res.body.traces.find((t) => t.rule_id === 'slow-scan') as Trace;
    const quick = res.body.traces.find((t) => t.rule_id === 'quick-title') as Trace;
    assert.equal(slow.status, 'timeout', JSON.stringify(slow));
    assert.match(
      slow.error ?? '',
      /slow-scan took longer than 1500 ms on this document .*SVC_EVAL_BUDGET_MS.* the other rules ran without it/,
    );
    assert.equal(quick.status, 'matched', JSON.stringify(quick));
    assert.deepEqual(quick.changes.title, { from: 'Hostile scan', to: 'Hostile document (checked)' });
    // The pool replaced the stopped worker: the next document is evaluated normally.
    const next = await run(small);
    assert.deepEqual(
      next.body.traces.map((t) => [t.rule_id, t.status]),
      [
        ['slow-scan', 'matched'],
        ['quick-title', 'not_matched'],
      ],
    );
  });

  it('scans at most the content limit and says so in every trace of the document', async () => {
    const res = hostileRun;
    assert.equal(res.body.traces.length, 2, JSON.stringify(res.body));
    for (const trace of res.body.traces) {
      const note = trace.conditions[0];
      assert.equal(note.path, 'content');
      assert.match(
        note.description,
        new RegExp(
          `content cut: rules scanned the first ${CONTENT_LIMIT.toLocaleString('en-US')} of [\\d,]+ characters`,
        ),
      );
    }
    const short = await run(small);
    assert.ok(
      short.body.traces.every((t) => t.conditions.every((c) => !c.description.startsWith('content cut'))),
      'a short document is not cut',
    );
  });
});
