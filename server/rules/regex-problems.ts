import { compileRegex, RegexSyntaxError, type RuleDefinition } from '../engine/engine.js';
import type { FileProblem } from '../app-errors.js';
import { problemAt } from './file-problems.js';
import type { YamlPath, YamlSource } from './yaml-source.js';

/**
 * Every regex of one rule that does not compile, each at its own place. Compiling a rule stops at its first
 * error, and compiles extractions before conditions; this pass finds them all, so one save lists every bad
 * pattern in file order. Messages and places are the compile stage's own, so the two never report one twice.
 */
export function regexProblems(definition: RuleDefinition, index: number, source: YamlSource): FileProblem[] {
  const found: FileProblem[] = [];
  const check = (pattern: unknown, path: YamlPath) => {
    if (typeof pattern !== 'string') return;
    try {
      compileRegex(pattern);
    } catch (err) {
      if (!(err instanceof RegexSyntaxError)) throw err;
      found.push(problemAt(source.positionOf(['rules', index, ...path]), `rule "${definition.id}": ${err.message}`));
    }
  };
  const patterns = (value: unknown, path: YamlPath) => {
    if (Array.isArray(value)) value.forEach((p, i) => check(p, [...path, i]));
    else check(value, path);
  };
  // Conditions nest (all/any/not, field tests): any `matches:` inside one is a pattern.
  const walkCondition = (value: unknown, path: YamlPath) => {
    if (Array.isArray(value)) return value.forEach((v, i) => walkCondition(v, [...path, i]));
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'matches') patterns(inner, [...path, key]);
      else walkCondition(inner, [...path, key]);
    }
  };
  walkCondition(definition.when, ['when']);
  for (const [name, extraction] of Object.entries(definition.extract ?? {})) {
    if (extraction === null || typeof extraction !== 'object') continue;
    patterns(extraction.regex, ['extract', name, 'regex']);
    walkCondition(extraction.where, ['extract', name, 'where']);
  }
  (definition.actions ?? []).forEach((action, a) => {
    // A condition on one action reads like `when:`.
    const condition = (action as { if?: unknown }).if;
    if (condition !== undefined) walkCondition(condition, ['actions', a, 'if']);
  });
  return found;
}
