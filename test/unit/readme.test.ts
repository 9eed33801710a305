import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { compileRule, runRuleTests } from '../../server/engine/engine.js';
import type { RuleFileDefinition } from '../../server/engine/model.js';
import { RULE_FILE_SCHEMA } from '../../server/engine/rule-schema.js';

const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README keeps both set-up commands', () => {
  assert.match(readme, /npm install && npm start/);
  assert.match(readme, /^npm test$/m);
});

test('every rule file shown in the README validates, compiles and passes its own tests', () => {
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]) as RuleFileDefinition);
  assert.ok(blocks.length > 0, 'the README shows a rule');
  const validate = new Ajv({ allErrors: true, strict: false }).compile(RULE_FILE_SCHEMA);
  for (const file of blocks) {
    assert.ok(validate(file), JSON.stringify(validate.errors));
    for (const rule of file.rules) {
      const failures = runRuleTests(compileRule(rule), { now: new Date('2025-03-01T12:00:00Z') }).filter((r) => !r.ok);
      assert.deepEqual(failures, [], `rule ${rule.id}`);
    }
  }
});

test('every doc the README links to exists', () => {
  for (const [, target] of readme.matchAll(/\]\((docs\/[^)#]+)\)/g)) {
    assert.ok(fs.existsSync(new URL(`../../${target}`, import.meta.url)), `${target} is linked but missing`);
  }
});
