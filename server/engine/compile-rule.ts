/**
 * compileRule: the stage after schema validation. Compiles regexes (RE2), parses templates and checks
 * what JSON Schema cannot, throwing RuleCompileError with a path inside the rule.
 */
import type { RuleDefinition, Trigger } from './model.js';
import { RULE_ID_PATTERN, TRIGGERS } from './rule-schema.js';
import { RuleCompileError } from './rule-errors.js';
import { compileCondition, type CompiledCondition } from './conditions.js';
import { compileExtraction, type CompiledExtraction } from './extraction.js';
import { compileAction, type CompiledAction } from './compile-actions.js';
import { compileSchedule, type CompiledSchedule } from './schedule.js';
import type { KnownValues } from './template-variables.js';

export interface CompiledRule {
  id: string;
  description: string | null;
  enabled: boolean;
  /** Triggers that run the rule; jobs run it regardless. */
  on: Trigger[];
  stop: boolean;
  when: CompiledCondition | null;
  /** A `check:` reads extracted values, so the values are extracted before the conditions run. */
  extractFirst: boolean;
  extract: CompiledExtraction[];
  actions: CompiledAction[];
  schedule: CompiledSchedule | null;
  definition: RuleDefinition;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function compileRule(def: RuleDefinition): CompiledRule {
  if (!isObject(def)) throw new RuleCompileError([], 'a rule is a mapping with at least an id');
  if (typeof def.id !== 'string' || !new RegExp(RULE_ID_PATTERN).test(def.id)) {
    throw new RuleCompileError(
      ['id'],
      `rule id ${JSON.stringify(def.id)} must be lower-case letters, digits, - and _, starting with a letter or digit`,
    );
  }
  const on = def.on ?? [...TRIGGERS];
  on.forEach((t, i) => {
    if (!(TRIGGERS as readonly string[]).includes(t))
      throw new RuleCompileError(['on', i], `unknown trigger "${t}"; triggers are ${TRIGGERS.join(', ')}`);
  });
  const extract: CompiledExtraction[] = [];
  if (def.extract !== undefined) {
    if (!isObject(def.extract))
      throw new RuleCompileError(['extract'], 'extract is a mapping of name → { regex: … } or { value: … }');
    for (const [name, e] of Object.entries(def.extract)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        throw new RuleCompileError(
          ['extract', name],
          `"${name}" cannot be used in templates; use letters, digits and _`,
        );
      if (!isObject(e))
        throw new RuleCompileError(['extract', name], 'an extraction is a mapping such as { regex: "Nr (\\d+)" }');
      extract.push(compileExtraction(name, e, ['extract', name], knownValues(extract)));
    }
  }
  const names = knownValues(extract);
  const when = def.when === undefined || def.when === null ? null : compileCondition(def.when, ['when'], names);
  const actions = (def.actions ?? []).map((a, i) => compileAction(a, ['actions', i], names));
  return {
    id: def.id,
    description: def.description ?? null,
    enabled: def.enabled !== false,
    on,
    stop: def.stop === true,
    when,
    extractFirst: when !== null && readsExtracted(when),
    extract,
    actions,
    schedule: def.schedule === undefined ? null : compileSchedule(def.schedule, ['schedule']),
    definition: def,
  };
}

/** The extracted values templates may read, with their shape (money offers .amount, a list .size). */
function knownValues(extract: CompiledExtraction[]): KnownValues {
  return new Map(
    extract.flatMap((e) =>
      e.groups.length
        ? e.groups.map((g) => [g.name, { type: g.type, list: e.pick === 'all' }] as const)
        : [[e.name, { type: e.type, list: e.pick === 'all' }] as const],
    ),
  );
}

function readsExtracted(c: CompiledCondition): boolean {
  if (c.kind === 'all' || c.kind === 'any') return c.children.some(readsExtracted);
  if (c.kind === 'not') return readsExtracted(c.child);
  return c.kind === 'check' && c.check.usesExtracted;
}
