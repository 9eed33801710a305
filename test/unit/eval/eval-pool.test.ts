import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { compileRule, emptyDocument, type RuleDefinition, type RuleDocument } from '../../../server/engine/engine.js';
import { createEvalPool, inlineEvaluator, type EvaluateRequest } from '../../../server/eval/eval-pool.js';
import { createMemoryLogger } from '../../../server/log.js';
import type { LoadedRule } from '../../../server/rules/rules.js';

function loaded(definition: RuleDefinition): LoadedRule {
  return {
    id: definition.id,
    description: null,
    file: 'pool.yml',
    package: null,
    definition,
    compiled: compileRule(definition),
    vars: {},
  };
}

const TITLE = loaded({
  id: 'invoice-title',
  when: { content: { matches: '(?i)rechnung' } },
  actions: [{ set_title: 'Rechnung {{ doc.id }}' }],
});
// Extraction with capture groups over one long run of word characters: seconds per 100 KB, far over the budget.
const SLOW = loaded({
  id: 'slow-tail',
  extract: { tail: { regex: '(\\w+\\s?){1,100}$' } },
  actions: [{ add_tags: ['tail'] }],
});
const TAG = loaded({ id: 'tag-all', actions: [{ add_tags: ['seen'] }] });

const doc = (id: number, content: string): RuleDocument => ({ ...emptyDocument(), id, title: `Doc ${id}`, content });
const request = (document: RuleDocument, rules: LoadedRule[]): EvaluateRequest => ({
  document,
  rules,
  trigger: 'job',
  now: new Date('2026-01-01T00:00:00Z'),
  customFieldTypes: {},
  tags: [],
});

const logger = createMemoryLogger();
// Far above what the ordinary rules take even on a busy machine, far below what the hostile scan of 1 MB takes.
const pool = createEvalPool({ workers: 2, budgetMs: 2000, logger });
after(() => pool.close());

test('is ready once every worker loaded the engine; inline at once', async () => {
  const fresh = createEvalPool({ workers: 2, budgetMs: 2000, logger });
  try {
    await fresh.ready();
    assert.equal(fresh.workers, 2, 'both workers came online, none was given up');
    const [evaluation] = await Promise.all([fresh.evaluate(request(doc(1, 'Rechnung Nr. 1'), [TITLE])), fresh.ready()]);
    assert.equal(evaluation.results.length, 1);
  } finally {
    await fresh.close();
  }
  await inlineEvaluator().ready();
});

test('evaluates in worker threads exactly as on the main thread', async () => {
  const inline = inlineEvaluator();
  const docs = Array.from({ length: 60 }, (_, i) => doc(i + 1, i % 3 === 0 ? `Rechnung Nr. ${i}` : `Brief ${i}`));
  const fromPool = await Promise.all(docs.map((d) => pool.evaluate(request(d, [TITLE, TAG]))));
  const onMain = await Promise.all(docs.map((d) => inline.evaluate(request(d, [TITLE, TAG]))));
  assert.deepEqual(fromPool, onMain);
  assert.equal(fromPool.filter((e) => e.changes.title !== undefined).length, 20);
  assert.equal(pool.workers, 2);
});

test('tag actions see the dms tag tree in a worker as on the main thread', async () => {
  const tags = [
    { id: 4, name: 'Steuer', parent: null },
    { id: 5, name: 'Steuer 2025', parent: 4 },
  ];
  const ADD_CHILD = loaded({ id: 'add-child', actions: [{ add_tags: ['Steuer 2025'] }] });
  const withTree = { ...request(doc(200, 'Brief'), [ADD_CHILD]), tags };
  const [fromPool, onMain] = [await pool.evaluate(withTree), await inlineEvaluator().evaluate(withTree)];
  assert.deepEqual(fromPool, onMain);
  assert.deepEqual([...(fromPool.changes.tags ?? [])].sort(), ['Steuer', 'Steuer 2025']);
});

test('a batch mixing rule sets, vars, field types and tag trees evaluates each item as the main thread does', async () => {
  // One batch message carries each rule, field-type map and tag list once; the items refer to them by key.
  const FIELD = loaded({
    id: 'amount-field',
    extract: { sum: { regex: 'Summe (\\d+,\\d\\d)', type: 'money' } },
    actions: [{ set_custom_fields: { Betrag: '{{ sum }}', Datum: '08.03.2025' } }],
  });
  const VARS = {
    ...loaded({ id: 'vars-title', actions: [{ set_title: '{{ vars.prefix }} {{ doc.id }}' }] }),
    vars: { prefix: 'Beleg' },
  };
  const PARENT = loaded({ id: 'add-child', actions: [{ add_tags: ['Steuer 2025'] }] });
  const euros = { Betrag: 'monetary' as const, Datum: 'date' as const };
  const strings = { Betrag: 'string' as const, Datum: 'string' as const };
  const nested = [
    { id: 4, name: 'Steuer', parent: null },
    { id: 5, name: 'Steuer 2025', parent: 4 },
  ];
  const flat = [{ id: 5, name: 'Steuer 2025', parent: null }];
  const ruleSets = [[TITLE, FIELD, VARS], [VARS, PARENT], [PARENT, TAG, FIELD], [FIELD]];
  const requests = Array.from({ length: 40 }, (_, i) => ({
    ...request(doc(300 + i, i % 2 ? `Rechnung Summe ${i},50` : `Brief ${i}`), ruleSets[i % ruleSets.length]),
    customFieldTypes: i % 3 ? euros : strings,
    tags: i % 5 ? nested : flat,
  }));
  const fromPool = await Promise.all(requests.map((r) => pool.evaluate(r)));
  const inline = inlineEvaluator();
  const onMain = await Promise.all(requests.map((r) => inline.evaluate(r)));
  assert.deepEqual(fromPool, onMain);
  // The items really differ, so a mixed-up key would show: money and strings, both tag trees, the vars.
  assert.deepEqual(fromPool[7].changes.custom_fields, { Betrag: { amount: 7.5, currency: null }, Datum: '2025-03-08' });
  assert.deepEqual(fromPool[3].changes.custom_fields, { Betrag: '3.50', Datum: '08.03.2025' });
  assert.deepEqual([...(fromPool[1].changes.tags ?? [])].sort(), ['Steuer', 'Steuer 2025']);
  assert.deepEqual(fromPool[5].changes.tags, ['Steuer 2025']);
  assert.equal(fromPool[0].changes.title, 'Beleg 300');
});

test('a rule over its budget times out on that document only; the batch around it completes', async () => {
  const hostile = doc(100, `${'a'.repeat(1_000_000)}.`);
  const docs = [doc(101, 'Rechnung 1'), hostile, doc(102, 'Rechnung 2'), doc(103, 'kurz')];
  const results = await Promise.all(docs.map((d) => pool.evaluate(request(d, [TITLE, SLOW, TAG]))));
  const statuses = results.map((e) => e.results.map((r) => r.status));
  assert.deepEqual(statuses[1], ['not_matched', 'timeout', 'matched']);
  assert.match(results[1].results[1].error ?? '', /^slow-tail took longer than 2000 ms on this document/);
  // The rules after the stopped one still ran on the hostile document, and their changes are planned.
  assert.deepEqual(results[1].changes.tags, ['seen']);
  for (const i of [0, 2, 3])
    assert.ok(!statuses[i].includes('timeout'), `document ${docs[i].id}: ${statuses[i].join(', ')}`);
  assert.ok(
    logger.lines.some((l) => l.includes('rule slow-tail exceeded the evaluation budget of 2000 ms on document 100')),
  );
  // The stopped worker was replaced: the pool still has both and keeps working.
  assert.equal(pool.workers, 2);
  const again = await pool.evaluate(request(doc(104, 'Rechnung 3'), [TITLE]));
  assert.equal(again.results[0].status, 'matched');
});

test('the text travels beside the JSON: escapes, astral and lone surrogates as on the main thread, also after a worker is replaced', async () => {
  // Structured cloning, not JSON, carries each document's content to the worker (eval-protocol.ts EvalMessage).
  const contents = [
    'Rechnung "1" \\ Straße 🧾\u2028\u0000',
    `${'a'.repeat(1_000_000)}.`,
    'Rechnung 2 \ud800 einsames Surrogat',
    '',
  ];
  const docs = contents.map((content, i) => doc(120 + i, content));
  const TEXT = loaded({
    id: 'text-title',
    when: { content: { matches: '(?i)rechnung' } },
    actions: [{ set_title: '{{ doc.content | slice: 0, 30 }}|{{ doc.content | size }}' }],
  });
  const results = await Promise.all(docs.map((d) => pool.evaluate(request(d, [TEXT, SLOW, TAG]))));
  // The hostile document's slow rule stopped its worker; the documents it had not answered went to a new one.
  assert.deepEqual(
    results[1].results.map((r) => r.status),
    ['not_matched', 'timeout', 'matched'],
  );
  const onMain = await Promise.all(
    [0, 2, 3].map((i) => inlineEvaluator().evaluate(request(docs[i], [TEXT, SLOW, TAG]))),
  );
  assert.deepEqual(
    [0, 2, 3].map((i) => results[i]),
    onMain,
  );
  assert.match(String(results[0].changes.title), /^Rechnung "1" \\ Straße 🧾/);
  assert.ok(String(results[2].changes.title).includes('\ud800'), String(results[2].changes.title));
});
