import { compileRule, renderVars, RuleCompileError, runRuleTests, TemplateError, type CompiledRule, type RuleDefinition } from '../engine/index.js';
import { errorMessage } from '../errors.js';
import { positionedError, type YamlSource } from './yaml-source.js';

/**
 * The engine's stages (compile: regexes and templates; tests; vars rendering) with their errors,
 * which carry a path inside the rule or vars file, turned into line/column errors of the whole file.
 */

export type { CompiledRule };

/** Compiles `rules[index]`; a RuleCompileError or TemplateError points at its place in the file. */
export function compileAt(definition: RuleDefinition, index: number, source: YamlSource): CompiledRule {
  try {
    return compileRule(definition);
  } catch (err) {
    const inner = err instanceof RuleCompileError || err instanceof TemplateError ? err.path : [];
    throw positionedError(source.positionOf(['rules', index, ...inner]), `rule "${definition.id}": ${errorMessage(err)}`);
  }
}

export interface TestContext {
  now: Date;
  vars: Record<string, unknown>;
}

/** Runs `rules[index]`'s own `tests:`; the first failing one becomes the error, at its place in the file. */
export function runTestsAt(compiled: CompiledRule, index: number, source: YamlSource, context: TestContext): void {
  const failed = runRuleTests(compiled, context).find((outcome) => !outcome.ok);
  if (failed) {
    throw positionedError(source.positionOf(['rules', index, ...failed.path]), `rule "${compiled.id}" failed its test ${failed.message}`);
  }
}

export interface VarsRenderContext {
  now: Date;
  env: Record<string, string>;
  inherited: Record<string, unknown>;
}

/** Renders a vars mapping over the inherited vars; a template error points at its key. */
export function renderVarsAt(vars: Record<string, unknown>, source: YamlSource, context: VarsRenderContext): Record<string, unknown> {
  try {
    return renderVars(vars, context);
  } catch (err) {
    const path = err instanceof TemplateError ? err.path : [];
    throw positionedError(source.positionOf(path), errorMessage(err));
  }
}
