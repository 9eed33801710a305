import type { RuleDefinition } from '../engine/model.js';
import type { YamlSource } from './yaml-source.js';

/**
 * `- name: Rechnung #1 wird erkannt` is the test name "Rechnung": YAML reads ` #` as the start of a comment.
 * Nothing fails, the name is only shorter than written, so a save warns (as "line L, column C: …").
 */
export function testNameComments(rules: ReadonlyArray<RuleDefinition | null>, source: YamlSource): string[] {
  const warnings: string[] = [];
  rules.forEach((rule, r) => {
    (rule?.tests ?? []).forEach((test, t) => {
      if (typeof test?.name !== 'string') return;
      const comment = source.trailingComment(['rules', r, 'tests', t, 'name']);
      if (!comment) return;
      const whole = `${test.name} ${comment.text}`;
      const quoted = whole.includes('"') ? `'${whole.replace(/'/g, "''")}'` : `"${whole}"`;
      warnings.push(
        `line ${comment.line}, column ${comment.column}: the test name stops before "${comment.text}", which YAML reads as a comment; quote the name; # starts a comment: name: ${quoted}`,
      );
    });
  });
  return warnings;
}
