import type { RuleDefinition } from '../engine/model.js';
import type { Position } from './file-problems.js';
import type { YamlSource } from './yaml-source.js';

/**
 * `- name: Rechnung #1 wird erkannt` is the test name "Rechnung": YAML reads ` #` as the start of a comment.
 * Nothing fails, the name is only shorter than written, so a save warns at the comment.
 */
export function testNameComments(
  rules: ReadonlyArray<RuleDefinition | null>,
  source: YamlSource,
): Array<{ at: Position; message: string }> {
  const warnings: Array<{ at: Position; message: string }> = [];
  rules.forEach((rule, r) => {
    (rule?.tests ?? []).forEach((test, t) => {
      if (typeof test?.name !== 'string') return;
      const comment = source.trailingComment(['rules', r, 'tests', t, 'name']);
      if (!comment) return;
      const whole = `${test.name} ${comment.text}`;
      const quoted = whole.includes('"') ? `'${whole.replace(/'/g, "''")}'` : `"${whole}"`;
      warnings.push({
        at: comment,
        message: `the test name stops before "${comment.text}", which YAML reads as a comment; quote the name; # starts a comment: name: ${quoted}`,
      });
    });
  });
  return warnings;
}
