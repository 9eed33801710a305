import type { ErrorObject, ValidateFunction } from 'ajv';
import { didYouMean } from '../engine/nearest-names.js';
import type { FileProblem } from '../app-errors.js';
import { ProblemList, problemAt } from './file-problems.js';
import * as generated from './rule-validators.generated.js';
import type { Span, YamlPath, YamlSource } from './yaml-source.js';

/**
 * Stage 2 of validation (docs/rule-files.md#validation): the JSON schema from `engine/rule-schema.ts`, the single source
 * of truth, checked with ajv. Of ajv's many errors (oneOf branches each report), the most useful one
 * is reported, pointing at the line and column of the offending key or value. The validators are ajv's code for
 * the schema, generated ahead (build/generate-validators.mjs): compiling it took 0.2 s of CPU at each start.
 */
const validators = generated as unknown as { ruleFile: ValidateFunction; varsFile: ValidateFunction };

// Lower is more useful: a wrong key says more than "must match exactly one schema".
const KEYWORD_RANK: Record<string, number> = {
  additionalProperties: 0,
  required: 1,
  enum: 2,
  const: 2,
  pattern: 3,
  propertyNames: 3,
  minProperties: 4,
  maxProperties: 4,
  minItems: 4,
  maxLength: 4,
  minLength: 4,
  uniqueItems: 4,
  type: 5,
  anyOf: 8,
  oneOf: 8,
};

function pointerToPath(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

/** `rules[0].when.all[1]` for messages. */
function describePath(path: YamlPath): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

const depthOf = (e: ErrorObject) =>
  pointerToPath(e.instancePath).length + (e.keyword === 'additionalProperties' ? 1 : 0);

function pickError(errors: ErrorObject[]): ErrorObject {
  return [...errors].sort(
    (a, b) => depthOf(b) - depthOf(a) || (KEYWORD_RANK[a.keyword] ?? 6) - (KEYWORD_RANK[b.keyword] ?? 6),
  )[0];
}

function list(values: unknown[], max = 25): string {
  const shown = values
    .slice(0, max)
    .map((v) => JSON.stringify(v))
    .join(', ');
  return values.length > max ? `${shown}, …` : shown;
}

function describeError(error: ErrorObject, all: ErrorObject[]): string {
  const samePlace = all.filter((e) => e.instancePath === error.instancePath && e.keyword === error.keyword);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const unknown = String(params.additionalProperty);
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const near = didYouMean(unknown, allowed);
      const hint = near ? `; ${near}` : allowed.length ? `; expected one of: ${allowed.join(', ')}` : '';
      return `unknown key "${unknown}"${hint}`;
    }
    case 'required':
      return `missing required key ${samePlace.map((e) => `"${(e.params as { missingProperty: string }).missingProperty}"`).join(' or ')}`;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const near = typeof error.data === 'string' ? didYouMean(error.data, allowed.map(String)) : '';
      return `must be one of: ${list(allowed)}${near ? `; ${near}` : ''}`;
    }
    case 'type': {
      const template = unquotedTemplate(error.data);
      if (template) return `${template} is read as a YAML mapping because it is not quoted; quote it: "${template}"`;
      const types = [
        ...new Set(samePlace.flatMap((e) => String((e.params as { type: string | string[] }).type).split(','))),
      ];
      return `must be ${types.map((t) => (t === 'array' ? 'a list' : t === 'object' ? 'a mapping' : t === 'null' ? 'null' : `a ${t}`)).join(' or ')}, not ${JSON.stringify(error.data)}`;
    }
    case 'pattern':
      return `${JSON.stringify(error.data)} does not match the pattern ${String(params.pattern)}`;
    case 'minProperties':
    case 'maxProperties':
      if ('not' in ((error.parentSchema as { properties?: object } | undefined)?.properties ?? {})) {
        const keys = error.data && typeof error.data === 'object' ? Object.keys(error.data) : [];
        // The usual slip: two fields under when: meant "both". Say how to write that.
        if (keys.length > 1)
          return `a condition has exactly one key, found ${keys.join(', ')}; to require all of them write all: with one item each (- ${keys[0]}: … / - ${keys[1]}: …), or any: for either`;
        return 'a condition has exactly one key: all, any, not, or a document field';
      }
      return error.message ?? 'has the wrong number of keys';
    default:
      return error.message ?? `fails the schema (${error.keyword})`;
  }
}

/**
 * `{{ ref }}` written without quotes is a YAML flow mapping whose only key is the mapping `{ ref }`, which
 * toJS turns into `{"{ ref }": null}`: the template as written, or null for any other value.
 */
function unquotedTemplate(data: unknown): string | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const entries = Object.entries(data);
  if (entries.length !== 1 || entries[0][1] !== null || !/^\{.*\}$/s.test(entries[0][0])) return null;
  return `{${entries[0][0]}}`;
}

/** `a` is `b` or lies inside it. */
const within = (a: YamlPath, b: YamlPath) => b.length <= a.length && b.every((s, i) => a[i] === s);

/**
 * ajv reports each failing branch of a `oneOf`/`anyOf` and the alternatives themselves; they are one problem.
 * Errors group under the outermost failing `oneOf`/`anyOf` they lie in; the others group by their place.
 */
function groupErrors(errors: ErrorObject[]): ErrorObject[][] {
  const roots = errors
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .map((e) => pointerToPath(e.instancePath))
    .sort((a, b) => a.length - b.length);
  const groups = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    const path = pointerToPath(error.instancePath);
    const root = roots.find((r) => within(path, r));
    const key = root ? `branch:${JSON.stringify(root)}` : `at:${JSON.stringify(path)}`;
    groups.set(key, [...(groups.get(key) ?? []), error]);
  }
  return [...groups.values()];
}

function describeGroup(
  errors: ErrorObject[],
  source: YamlSource,
  value: unknown,
): { at: Span; message: string; path: YamlPath } {
  const error = pickError(errors);
  const path = pointerToPath(error.instancePath);
  const at =
    error.keyword === 'additionalProperties'
      ? source.keyPositionOf(path, (error.params as { additionalProperty: string }).additionalProperty)
      : source.positionOf(path);
  const rules = (value as { rules?: unknown }).rules;
  let where = describePath(path);
  if (path[0] === 'rules' && typeof path[1] === 'number' && Array.isArray(rules)) {
    const id = (rules[path[1]] as { id?: unknown } | null)?.id;
    const inner = describePath(path.slice(2));
    where = typeof id === 'string' ? `rule "${id}"${inner ? ` at ${inner}` : ''}` : where;
  }
  return { at, message: `${where ? `${where}: ` : ''}${describeError(error, errors)}`, path };
}

/** A schema problem and the place in the value it is about (to tell which rule it belongs to). */
export interface SchemaProblem {
  problem: FileProblem;
  path: YamlPath;
}

function problemsOf(validate: ValidateFunction, source: YamlSource, value: unknown): SchemaProblem[] {
  if (validate(value)) return [];
  const found: SchemaProblem[] = [];
  for (const group of groupErrors(validate.errors ?? [])) {
    // Several unknown keys in one mapping are several problems, each underlined at its own key.
    const parts = group.every((e) => e.keyword === 'additionalProperties') ? group.map((e) => [e]) : [group];
    for (const part of parts) {
      const { at, message, path } = describeGroup(part, source, value);
      found.push({ problem: problemAt(at, message), path });
    }
  }
  return found;
}

/** Every place a rule file's content breaks the rule file schema (empty when it is valid). */
export function ruleFileSchemaProblems(source: YamlSource, value: unknown): SchemaProblem[] {
  return problemsOf(validators.ruleFile, source, value);
}

function throwAll(found: SchemaProblem[]): void {
  const problems = new ProblemList();
  for (const { problem } of found) problems.push(problem);
  problems.throwIfAny();
}

/** Throws a positioned ValidationError when a rule file's content breaks the rule file schema. */
export function checkRuleFileSchema(source: YamlSource, value: unknown): void {
  throwAll(ruleFileSchemaProblems(source, value));
}

/** Throws a positioned ValidationError when a `_vars.yml` is not a mapping. */
export function checkVarsFileSchema(source: YamlSource, value: unknown): void {
  throwAll(problemsOf(validators.varsFile, source, value));
}
