import { compileRule, type RuleDefinition } from '../../server/engine/engine.js';
import type { LoadedRule } from '../../server/rules/rules-loader.js';

/** A rule as the rule store hands it to runs, from its definition alone (file `t.yml`, no package, no vars). */
export const loadedRule = (def: RuleDefinition): LoadedRule => ({
  id: def.id,
  description: null,
  file: 't.yml',
  package: null,
  definition: def,
  compiled: compileRule(def),
  vars: {},
});
