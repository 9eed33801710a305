import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import {
  ACTION_MODIFIERS,
  ACTIONS,
  COMBINATORS,
  compileRule,
  DOCUMENT_FIELDS,
  EXTRACTION_TYPES,
  OPERATORS,
  RULE_FILE_SCHEMA,
  renderVars,
  runRuleTests,
  TEMPLATE_FILTERS,
  TRIGGERS,
  type RuleDefinition,
} from '../../../server/engine/engine.js';
import { NOW } from './helpers.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/rules.md', import.meta.url)), 'utf8');

/** The text of a `## ` or `### ` section, up to the next heading of the same or a higher level. */
function section(title: string): string {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.replace(/^#+ /, '') === title);
  assert.ok(start >= 0, `docs/rules.md has no section "${title}"`);
  const level = lines[start].indexOf(' ');
  const end = lines.findIndex((l, i) => i > start && /^#{2,3} /.test(l) && l.indexOf(' ') <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

function missing(names: readonly string[], text: string): string[] {
  return names.filter((n) => !text.includes(`\`${n}\``));
}

const definitions = RULE_FILE_SCHEMA.definitions;
const checks: Array<[string, string, readonly string[]]> = [
  ['rule keys', 'Rule keys', Object.keys(definitions.rule.properties)],
  ['fields', 'Fields', [...DOCUMENT_FIELDS, 'custom_fields.<name>']],
  ['operators', 'Operators', [...OPERATORS, ...Object.keys(definitions.operatorTest.properties)]],
  ['combinators', 'Combinators', COMBINATORS],
  ['extraction keys', 'Extraction', Object.keys(definitions.extraction.properties)],
  ['extraction types', 'Types and formats', EXTRACTION_TYPES],
  ['pick values', 'Extraction', definitions.extraction.properties.pick.enum],
  ['actions', 'Actions', ACTIONS],
  ['action modifiers', 'Modifiers', ACTION_MODIFIERS],
  ['template filters', 'Template filters', TEMPLATE_FILTERS],
  ['triggers', 'Triggers', TRIGGERS],
  [
    'test keys',
    'Rule tests',
    [
      ...Object.keys(definitions.ruleTest.properties),
      ...Object.keys(definitions.ruleTest.properties.expect.properties),
    ],
  ],
  [
    'trace statuses',
    'Traces',
    ['matched', 'not_matched', 'error', 'skipped', 'timeout', 'planned', 'applied', 'unchanged', 'failed'],
  ],
];

for (const [what, title, names] of checks) {
  test(`docs/rules.md documents every ${what} (section "${title}")`, () => {
    assert.deepEqual(missing(names, section(title)), []);
  });
}

const yamlBlocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
const ajv = new Ajv({ allErrors: true, strict: false });
const validateFile = ajv.compile<{ rules: RuleDefinition[] }>(RULE_FILE_SCHEMA);

test('docs/rules.md has examples', () => assert.ok(yamlBlocks.length >= 5));

yamlBlocks.forEach((block, i) => {
  const data: unknown = parse(block);
  const keys = Object.keys(data ?? {});
  test(`example ${i + 1} (${keys.join(', ')}) is valid against the schema and compiles`, () => {
    if (keys.includes('year') || keys.includes('year_tag')) {
      // The vars example: two files shown in one block.
      const rendered = renderVars(data, { now: NOW, env: { SVC_VAR_OWNER: 'bob' } });
      assert.equal(rendered.owner, 'bob');
      return;
    }
    const file = keys.includes('rules') ? data : { rules: [{ id: 'doc-example', ...(data as object) }] };
    assert.ok(validateFile(file), JSON.stringify(validateFile.errors));
    for (const rule of file.rules) {
      const compiled = compileRule(rule);
      const failures = runRuleTests(compiled, { now: NOW, vars: { year_tag: 'Steuer 2025' } }).filter((o) => !o.ok);
      assert.deepEqual(failures, []);
    }
  });
});
