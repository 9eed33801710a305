/** The rule engine: pure (no I/O, clock injected). Compile rules, evaluate them, run their tests, render vars. */
export * from './model.js';
export * from './rule-schema.js';
export { RuleCompileError, TemplateError, ConversionError, formatPath, type RulePath } from './rule-errors.js';
export { compileRule, type CompiledRule } from './compile-rule.js';
export {
  evaluateRules,
  type Evaluation,
  type EvaluateInput,
  type RuleInput,
  type RuleResult,
  type Conflict,
} from './evaluate.js';
export { runRuleTests, whyNot, type RuleTestOutcome, type RuleTestOptions } from './rule-tests.js';
export { renderVars, type VarsContext } from './vars.js';
export { TEMPLATE_FILTERS, CUSTOM_TEMPLATE_FILTERS } from './templates.js';
export { compileRegex, RegexSyntaxError, type RuleRegex } from './regex.js';
export { parseNumber, parseInteger, parseMoney, parseBool, formatMoneyWire } from './parse-number.js';
export { parseDate, resolveRelativeDate } from './parse-date.js';
export { emptyDocument } from './fields.js';
export { RESERVED_NAMES } from './extraction.js';
export type { PlannedNotification } from './apply-actions.js';
export { notifyFires, type NotifyAttach, type NotifyWhen } from './notify-action.js';
export { compileSchedule, nextRunAfter, type CompiledSchedule } from './schedule.js';
export {
  answersSource,
  questionKey,
  MAX_QUERY_RESULTS,
  type QueryAnswer,
  type QueryQuestion,
  type QuerySource,
} from './document-queries.js';
