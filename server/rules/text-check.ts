import type { RuleFilePath } from './file-names.js';
import type { CompiledRule, RuleTestRunner } from './engine-stages.js';
import type { LoadedRule } from './rules-loader.js';
import { prepareRuleFile, type PreparedRuleFile } from './validate-file.js';

/**
 * Rule-file text that is not published (the editor's unsaved text or a draft), turned into what runs
 * and tests need, without touching the rules dir or the loaded rules.
 */

/** One rule's `tests:` example and how it went, placed at its line in the text. */
export interface RuleTestReport {
  rule_id: string;
  name: string;
  ok: boolean;
  message: string;
  line: number;
  column: number;
}

/** The rules the text defines, as runs use loaded rules (throws a positioned ValidationError). */
export function rulesOfText(
  file: RuleFilePath,
  text: string,
  takenIds: ReadonlyMap<string, string>,
  vars: Record<string, unknown>,
): LoadedRule[] {
  const prepared = prepareRuleFile(text, { takenIds });
  return prepared.definitions.map((definition, i) => ({
    id: definition.id,
    description: definition.description ?? null,
    file: file.path,
    package: file.package,
    definition,
    compiled: prepared.compiled[i],
    vars,
  }));
}

export interface TestRunContext {
  now: Date;
  vars: Record<string, unknown>;
  runTests: RuleTestRunner;
}

/** Every `tests:` example of every rule in the text, passed or failed (not only the first failure). */
export async function testReports(
  prepared: Pick<PreparedRuleFile, 'source'> & { compiled: Array<CompiledRule | null> },
  context: TestRunContext,
): Promise<RuleTestReport[]> {
  const reports: RuleTestReport[] = [];
  for (const [index, compiled] of prepared.compiled.entries()) {
    if (!compiled) continue;
    for (const outcome of await context.runTests(compiled, { now: context.now, vars: context.vars })) {
      const at = prepared.source.positionOf(['rules', index, ...outcome.path]);
      reports.push({
        rule_id: compiled.id,
        name: outcome.name,
        ok: outcome.ok,
        message: outcome.message,
        line: at.line,
        column: at.column,
      });
    }
  }
  return reports;
}

/** Puts the text's rules in the place of the file's loaded ones, so "all rules" runs in load order (path order). */
export function withFileReplaced(loaded: LoadedRule[], path: string, replacement: LoadedRule[]): LoadedRule[] {
  const others = loaded.filter((r) => r.file !== path);
  const at = others.findIndex((r) => r.file > path);
  const index = at === -1 ? others.length : at;
  return [...others.slice(0, index), ...replacement, ...others.slice(index)];
}
