import {
  compileRule,
  renderVars,
  RuleCompileError,
  runRuleTests,
  TemplateError,
  type CompiledRule,
  type RuleDefinition,
  type RuleTestOptions,
  type RuleTestOutcome,
} from '../engine/engine.js';
import { didYouMean } from '../engine/nearest-names.js';
import { DOCUMENT_FIELDS } from '../engine/rule-schema.js';
import type { FileProblem } from '../app-errors.js';
import { errorMessage } from '../error-message.js';
import { problemAt } from './file-problems.js';
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
    const path = ['rules', index, ...inner];
    const word = inner.length > 0 ? templateWord(errorMessage(err)) : null;
    throw positionedError(
      word ? source.wordPositionOf(path, word) : source.positionOf(path),
      `rule "${definition.id}": ${withFieldSuggestion(errorMessage(err))}`,
    );
  }
}

/** A compile error naming a document field that does not exist gets the nearest field names. */
function withFieldSuggestion(message: string): string {
  return message.replace(/^((?:cannot read from|unknown field) "([^"]+)")/, (whole, _lead: string, name: string) => {
    const near = name.startsWith('custom_fields.') ? '' : didYouMean(name, DOCUMENT_FIELDS);
    return near ? `${whole} (${near})` : whole;
  });
}

/** The name a template error is about ("names "doc.titel"", "undefined filter: upcase2"), to underline it alone. */
export function templateWord(message: string): string | null {
  const match = /names "([^"]+)"/.exec(message) ?? /undefined (?:filter|tag): ([^\s,]+)/.exec(message);
  return match?.[1] ?? null;
}

/**
 * Runs one rule's `tests:`. The store is given one that runs them in a worker thread within the evaluation
 * budget (server/eval/rule-test-runner.ts), so a heavy example cannot stall the service at load or save.
 */
export type RuleTestRunner = (
  compiled: CompiledRule,
  options: RuleTestOptions & RuleTestRunOptions,
) => Promise<RuleTestOutcome[]>;

export interface RuleTestRunOptions {
  /** Stop at the first failing test (load and save need only that one; the editor wants them all). */
  firstFailure?: boolean;
}

/** The same tests on the calling thread, without a budget (SVC_EVAL_WORKERS=0, and unit tests). */
export const inlineRuleTests: RuleTestRunner = (compiled, options) =>
  Promise.resolve().then(() => runRuleTests(compiled, options));

export interface TestContext {
  now: Date;
  vars: Record<string, unknown>;
  runTests: RuleTestRunner;
}

/** Runs `rules[index]`'s own `tests:`; the first failing one becomes the rule's problem, at its place in the file. */
export async function testProblemAt(
  compiled: CompiledRule,
  index: number,
  source: YamlSource,
  context: TestContext,
): Promise<FileProblem | null> {
  const failed = (await context.runTests(compiled, { now: context.now, vars: context.vars, firstFailure: true })).find(
    (outcome) => !outcome.ok,
  );
  if (!failed) return null;
  return problemAt(
    source.positionOf(['rules', index, ...failed.path]),
    `rule "${compiled.id}" failed its test ${failed.message}`,
  );
}

export interface VarsRenderContext {
  now: Date;
  env: Record<string, string>;
  inherited: Record<string, unknown>;
}

/** Renders a vars mapping over the inherited vars; a template error points at its key. */
export function renderVarsAt(
  vars: Record<string, unknown>,
  source: YamlSource,
  context: VarsRenderContext,
): Record<string, unknown> {
  try {
    return renderVars(vars, context);
  } catch (err) {
    const path = err instanceof TemplateError ? err.path : [];
    const word = err instanceof TemplateError ? templateWord(err.message) : null;
    throw positionedError(word ? source.wordPositionOf(path, word) : source.positionOf(path), errorMessage(err));
  }
}
