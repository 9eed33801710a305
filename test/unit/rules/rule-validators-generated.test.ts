import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { RULE_FILE_SCHEMA, VARS_FILE_SCHEMA } from '../../../server/engine/rule-schema.js';
import { PROJECT_ROOT } from '../../../server/project-paths.js';
// @ts-expect-error -- a build script in plain JavaScript, without type declarations
import { VALIDATORS_FILE, validatorsModule } from '../../../build/generate-validators.mjs';

it('the generated rule validators are those of the current rule schema', () => {
  const committed = fs.readFileSync(path.join(PROJECT_ROOT, VALIDATORS_FILE as string), 'utf8');
  const fresh = (validatorsModule as (a: unknown, b: unknown) => string)(RULE_FILE_SCHEMA, VARS_FILE_SCHEMA);
  assert.ok(committed === fresh, `${VALIDATORS_FILE as string} is out of date: run \`npm run generate-validators\``);
});
