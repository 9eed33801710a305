/**
 * `check:` — a computed condition. A Liquid expression as in `{% if … %}` (`total > 1000 and
 * doc.page_count < 3`), or, when the text holds `{{ }}` / `{% %}`, a template whose output must be
 * truthy. It sees `doc`, `vars`, `now`, `rule` and the extracted values; the trace shows what it saw.
 */
import { analyzeSync } from 'liquidjs';
import { RuleCompileError, TemplateError, type RulePath } from './rule-errors.js';
import { compileTemplate, isTemplateText, renderTemplate, type CompiledTemplate } from './templates.js';
import { checkTemplateVariables, type KnownValues } from './template-variables.js';
import { describeValue, shortenValue } from './describe.js';

export interface CompiledCheck {
  source: string;
  /** True for the template form: the rendered text is the value. */
  rendered: boolean;
  template: CompiledTemplate;
  /** The variables the check reads (`total`, `doc.page_count`), shown in the trace with their values. */
  reads: string[][];
  /** Names of extracted values it reads: the rule extracts before it evaluates its conditions. */
  usesExtracted: boolean;
}

/** Output that counts as false for the template form (after trimming, any case). */
const FALSY = new Set(['', 'false', '0', 'no', 'nil', 'null']);

export function compileCheck(source: unknown, path: RulePath, extractNames: KnownValues): CompiledCheck {
  if (typeof source !== 'string' || source.trim() === '')
    throw new RuleCompileError(
      path,
      'check takes a Liquid expression such as "total > 1000" or a template such as "{{ doc.created | date: \'%u\' }}"',
    );
  const rendered = isTemplateText(source);
  // "{{ x }} == 7" renders "7 == 7", which is text and always truthy: refuse it instead of matching everything.
  if (
    rendered &&
    /==|!=|<=|>=|<|>|\b(and|or|contains)\b/.test(source.replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g, ''))
  ) {
    throw new RuleCompileError(
      path,
      `check ${JSON.stringify(source)} compares outside its {{ }}: the comparison would be plain text and always true. Compare inside the template ({% if … %}yes{% endif %}) or write an expression without {{ }} such as "total > 1000"`,
    );
  }
  const text = rendered ? source : `{% if ${source} %}true{% else %}false{% endif %}`;
  let template: CompiledTemplate;
  try {
    template = compileTemplate(text, path);
  } catch (err) {
    if (err instanceof TemplateError)
      throw new RuleCompileError(
        path,
        rendered
          ? err.message
          : `check "${source}" is not a Liquid expression: ${err.message.replace(/^template .*? does not parse: /, '')}`,
      );
    throw err;
  }
  checkTemplateVariables(template, extractNames, path);
  const globals = analyzeSync(template.templates).globals;
  const reads = Object.values(globals).flatMap((uses) =>
    uses.map((u) => u.segments.filter((s): s is string | number => typeof s !== 'object').map(String)),
  );
  const unique = [...new Map(reads.map((r) => [r.join('.'), r])).values()];
  return {
    source,
    rendered,
    template,
    reads: unique,
    usesExtracted: Object.keys(globals).some((n) => extractNames.has(n)),
  };
}

export interface CheckOutcome {
  result: boolean;
  /** What it evaluated to: the rendered text, or the values of the variables the expression read. */
  actual: unknown;
  description: string;
}

/** Evaluates a check; a render error propagates as TemplateError (the rule becomes an error, not a quiet false). */
export function evaluateCheck(c: CompiledCheck, scope: Record<string, unknown>, path: RulePath): CheckOutcome {
  const out = renderTemplate(c.template, scope, path).trim();
  const result = c.rendered ? !FALSY.has(out.toLowerCase()) : out === 'true';
  const values = Object.fromEntries(
    c.reads.map((segments) => [segments.join('.'), shortenValue(lookup(scope, segments))]),
  );
  const saw = Object.entries(values)
    .map(([k, v]) => `${k} = ${describeValue(v)}`)
    .join(', ');
  if (c.rendered)
    return {
      result,
      actual: out,
      description: `check ${JSON.stringify(c.source)} rendered ${JSON.stringify(out)} → ${result}`,
    };
  return {
    result,
    actual: values,
    description: `check ${JSON.stringify(c.source)} → ${result}${saw ? ` (${saw})` : ''}`,
  };
}

/** What the expression saw at `segments`, with Liquid's own members of lists and texts (size, first, last). */
function lookup(scope: Record<string, unknown>, segments: string[]): unknown {
  let v: unknown = scope;
  for (const s of segments) {
    if ((Array.isArray(v) || typeof v === 'string') && s === 'size') v = v.length;
    else if (Array.isArray(v) && (s === 'first' || s === 'last')) v = s === 'first' ? v[0] : v[v.length - 1];
    else if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, s)) return undefined;
    else v = (v as Record<string, unknown>)[s];
  }
  return v;
}
