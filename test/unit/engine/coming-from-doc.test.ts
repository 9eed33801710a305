import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { compileRule, RULE_FILE_SCHEMA, runRuleTests, type RuleDefinition } from '../../../server/engine/engine.js';
import { NOW } from './helpers.js';

const page = readFileSync(
  fileURLToPath(new URL('../../../docs/coming-from-postprocessor.md', import.meta.url)),
  'utf8',
);
const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
const validate = new Ajv({ allErrors: true, strict: false }).compile(RULE_FILE_SCHEMA);

test('the coming-from page has its side-by-side examples', () => assert.ok(blocks.length >= 6, String(blocks.length)));

blocks.forEach((block, i) => {
  const file = parse(block) as { rules: RuleDefinition[] };
  test(`coming-from example ${i + 1} (${file.rules.map((r) => r.id).join(', ')}) validates, compiles and passes its tests`, () => {
    assert.ok(validate(file), JSON.stringify(validate.errors));
    for (const rule of file.rules) {
      const failed = runRuleTests(compileRule(rule), { now: NOW }).filter((o) => !o.ok);
      assert.deepEqual(
        failed.map((o) => o.message),
        [],
      );
    }
  });
});
