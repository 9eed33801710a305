/** Small helpers for engine tests: compile a rule from a plain definition and evaluate it. */
import {
  compileRule,
  evaluateRules,
  type Evaluation,
  type RuleDefinition,
  type RuleDocument,
  type RunTrigger,
} from '../../../server/engine/engine.js';
import { CUSTOM_FIELD_TYPES } from './fixtures/sample-documents.js';

export const NOW = new Date('2025-03-15T12:00:00Z');

export function run(
  doc: RuleDocument,
  defs: RuleDefinition[],
  opts: { trigger?: RunTrigger; vars?: Record<string, unknown> } = {},
): Evaluation {
  return evaluateRules({
    document: doc,
    rules: defs.map((d) => ({ compiled: compileRule(d), file: 'test/rules.yml', vars: opts.vars ?? {} })),
    trigger: opts.trigger ?? 'manual',
    now: NOW,
    customFieldTypes: CUSTOM_FIELD_TYPES,
  });
}
