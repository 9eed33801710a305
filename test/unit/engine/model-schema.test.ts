import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACTION_MODIFIERS,
  ACTIONS,
  EXTRACTION_PICKS,
  EXTRACTION_TYPES,
  OPERATORS,
  RULE_FILE_SCHEMA,
  TRIGGERS,
  type Action,
  type ActionBodies,
  type ActionModifiers,
  type ActionName,
  type Extraction,
  type NotifyBody,
  type OperatorTest,
  type RuleDefinition,
  type RuleSchedule,
  type RuleTestCase,
} from '../../../server/engine/engine.js';

// model.ts derives triggers, action names, extraction types and picks from rule-schema.ts; the interfaces
// whose keys cannot be derived are held to the schema here, at compile time (`npm run check`) and at run time.
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Keys<T> = Extract<keyof T, string>;
type Defs = typeof RULE_FILE_SCHEMA.definitions;

const sameKeys: [
  Equal<keyof ActionBodies, ActionName>,
  Equal<keyof ActionModifiers, (typeof ACTION_MODIFIERS)[number]>,
  Equal<keyof Action, Keys<Defs['action']['properties']>>,
  Equal<keyof NotifyBody, Keys<Defs['action']['properties']['notify']['properties']>>,
  Equal<keyof OperatorTest, Keys<Defs['operatorTest']['properties']>>,
  Equal<keyof Extraction, Keys<Defs['extraction']['properties']>>,
  Equal<keyof RuleDefinition, Keys<Defs['rule']['properties']>>,
  Equal<keyof RuleTestCase, Keys<Defs['ruleTest']['properties']>>,
  Equal<keyof RuleSchedule, Keys<Defs['schedule']['properties']>>,
] = [true, true, true, true, true, true, true, true, true];

test('the model and the schema name the same keys', () => {
  assert.ok(sameKeys.every(Boolean));
  const defs = RULE_FILE_SCHEMA.definitions;
  assert.deepEqual(Object.keys(defs.action.properties).sort(), [...ACTIONS, ...ACTION_MODIFIERS].sort());
  assert.deepEqual(
    Object.keys(defs.operatorTest.properties).sort(),
    [...new Set([...OPERATORS, 'case_sensitive'])].sort(),
  );
  assert.deepEqual(defs.extraction.properties.type.enum, [...EXTRACTION_TYPES]);
  assert.deepEqual(defs.extraction.properties.pick.enum, [...EXTRACTION_PICKS]);
  assert.deepEqual(defs.rule.properties.on.items.enum, [...TRIGGERS]);
});
