import type { RuleDocument } from '../engine/engine.js';
import { inlineRuleTests } from '../rules/rules.js';
import { checkRuleFileTests, prepareRuleFile } from '../rules/validate-file.js';
import { ruleFileText, type RuleFileInput } from './rule-yaml.js';

export interface SuggestionFileInput extends Omit<RuleFileInput, 'matching' | 'notMatching' | 'wholeText'> {
  matching: readonly RuleDocument[];
  notMatching: readonly RuleDocument[];
  now: Date;
}

/**
 * The rule file for a candidate, checked by the same stages a save runs (schema, compile, its own tests). The
 * tests use the parts of real documents around the conditions; when a cut example fails, the whole text is
 * tried, then the next example. Null when no pair of examples passes (the candidate is not offered).
 */
export async function validatedRuleFile(input: SuggestionFileInput): Promise<string | null> {
  for (const matching of input.matching)
    for (const notMatching of input.notMatching)
      for (const wholeText of [false, true]) {
        const text = ruleFileText({ ...input, matching, notMatching, wholeText });
        try {
          const prepared = prepareRuleFile(text, { takenIds: new Map() });
          await checkRuleFileTests(prepared, { now: input.now, vars: {}, runTests: inlineRuleTests });
          return text;
        } catch {
          // The next example.
        }
      }
  return null;
}
