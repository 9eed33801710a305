import type { Condition, RuleDefinition } from '../engine/model.js';
import { isTemplateText } from '../engine/templates.js';
import type { YamlPath } from './yaml-source.js';

/**
 * Condition operands are compared as written: `title: { contains: "{{ vars.x }}" }` looks for the
 * literal braces. That is almost never meant, so a save warns and points at `check:`, which renders.
 * A warning rather than an error, so a file that loaded before keeps loading.
 */
export interface ConditionTemplateUse {
  path: YamlPath;
  message: string;
}

export function findConditionTemplates(rules: ReadonlyArray<RuleDefinition | null>): ConditionTemplateUse[] {
  const found: ConditionTemplateUse[] = [];
  const operand = (value: unknown, path: YamlPath, field: string) => {
    if (Array.isArray(value)) return value.forEach((v, i) => operand(v, [...path, i], field));
    if (typeof value === 'string' && isTemplateText(value)) {
      found.push({
        path,
        message: `the ${field} condition compares with the literal text ${JSON.stringify(value)}: templates are not rendered in operands. To compare with a variable, write a computed condition such as check: "doc.title contains vars.x", or compare two fields with { field: <name> }.`,
      });
    }
  };
  const walk = (condition: Condition, path: YamlPath) => {
    for (const [key, value] of Object.entries(condition)) {
      const here = [...path, key];
      if (key === 'all' || key === 'any') (value as Condition[]).forEach((c, i) => walk(c, [...here, i]));
      else if (key === 'not') walk(value as Condition, here);
      else if (key === 'check') continue;
      else if (value !== null && typeof value === 'object')
        for (const [op, v] of Object.entries(value as Record<string, unknown>)) operand(v, [...here, op], key);
      else operand(value, here, key);
    }
  };
  rules.forEach((rule, r) => rule?.when && walk(rule.when, ['rules', r, 'when']));
  return found;
}
