/** renderVars: string values of a `_vars.yml` mapping are Liquid templates rendered at load time. */
import { TemplateError, type RulePath } from './rule-errors.js';
import { compileTemplate, renderTemplate } from './templates.js';

export interface VarsContext {
  now: Date;
  /** Only SVC_VAR_* variables; the caller filters them. */
  env: Record<string, string>;
  /** Vars from the level above (global vars for a package's `_vars.yml`). */
  inherited?: Record<string, unknown>;
}

/**
 * Renders a vars mapping: each string is a template that sees `now`, `env`, and `vars` (inherited plus
 * the keys defined above it, also reachable by bare name). Returns inherited merged with these vars.
 */
export function renderVars(vars: unknown, ctx: VarsContext): Record<string, unknown> {
  if (vars === null || vars === undefined) return { ...(ctx.inherited ?? {}) };
  if (typeof vars !== 'object' || Array.isArray(vars))
    throw new TemplateError([], 'a vars file holds a mapping of name → value');
  const result: Record<string, unknown> = { ...(ctx.inherited ?? {}) };
  for (const [key, value] of Object.entries(vars as Record<string, unknown>)) {
    const scope = { ...result, vars: { ...result }, now: ctx.now.toISOString(), env: ctx.env };
    result[key] = renderValue(value, scope, [key]);
  }
  return result;
}

function renderValue(value: unknown, scope: Record<string, unknown>, path: RulePath): unknown {
  if (typeof value === 'string') return renderTemplate(compileTemplate(value, path), scope, path);
  if (Array.isArray(value)) return value.map((v, i) => renderValue(v, scope, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, scope, [...path, k])]));
  }
  return value;
}
