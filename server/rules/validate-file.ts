import type { RuleDefinition } from '../engine/model.js';
import { ValidationError } from '../errors.js';
import { compileAt, renderVarsAt, runTestsAt, type CompiledRule, type TestContext } from './engine-stages.js';
import { checkRuleFileSchema, checkVarsFileSchema } from './schema-check.js';
import { parseYamlSource, positionedError, type YamlSource } from './yaml-source.js';

/**
 * The validation stages (docs/rule-files.md#validation) for one file's text, in order: YAML syntax (limits), schema,
 * compile (regexes and templates), ids unique, then — after the store's async dms-name stage — tests.
 * Each stage throws a ValidationError naming line and column; nothing here touches the disk.
 */

export const MAX_RULE_FILE_BYTES = 512 * 1024;

export interface PreparedRuleFile {
  source: YamlSource;
  definitions: RuleDefinition[];
  compiled: CompiledRule[];
}

export interface RuleFileContext {
  /** Rule id → path of the file that already holds it (other files only). */
  takenIds: ReadonlyMap<string, string>;
  /** Targets `notify` may use (from the settings), name → kind; undefined: not checked. */
  notifyTargets?: NotifyTargetKinds;
}

/** The notify targets of the settings by name: an HTTP endpoint or e-mail. */
export type NotifyTargetKinds = Readonly<Record<string, 'http' | 'email'>>;

function checkSize(text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RULE_FILE_BYTES)
    throw new ValidationError(
      `The file is ${bytes} bytes; rule files may be at most ${MAX_RULE_FILE_BYTES / 1024} KB.`,
    );
}

/** Stages 1–5: YAML, schema, compile, unique ids. An empty file is a valid file without rules. */
export function prepareRuleFile(text: string, context: RuleFileContext): PreparedRuleFile {
  checkSize(text);
  const source = parseYamlSource(text);
  let value = source.value ?? { rules: [] };
  // `rules:` with nothing under it is how a new file starts; treat it as an empty list.
  if (typeof value === 'object' && !Array.isArray(value) && (value as { rules?: unknown }).rules === null)
    value = { ...value, rules: [] };
  checkRuleFileSchema(source, value);
  const definitions = (value as { rules: RuleDefinition[] }).rules;
  const compiled = definitions.map((definition, index) => compileAt(definition, index, source));

  const seen = new Set<string>();
  definitions.forEach((definition, index) => {
    const position = source.positionOf(['rules', index, 'id']);
    if (seen.has(definition.id))
      throw positionedError(
        position,
        `rule id "${definition.id}" is used twice in this file; ids are unique across all rule files`,
      );
    const other = context.takenIds.get(definition.id);
    if (other !== undefined)
      throw positionedError(
        position,
        `rule id "${definition.id}" is already used in ${other}; ids are unique across all rule files`,
      );
    seen.add(definition.id);
  });
  if (context.notifyTargets) checkNotifyTargets(compiled, source, context.notifyTargets);
  return { source, definitions, compiled };
}

/**
 * A rule may only name targets the settings define: addresses never come from a rule file. What a notify asks
 * of its target must fit its kind: body and headers an HTTP target, attach an e-mail target.
 */
function checkNotifyTargets(compiled: CompiledRule[], source: YamlSource, targets: NotifyTargetKinds): void {
  const known = Object.keys(targets);
  compiled.forEach((rule, index) => {
    for (const action of rule.actions) {
      const p = action.payload;
      if (p.kind !== 'notify') continue;
      const at = (key: string) => source.positionOf(['rules', index, ...action.path, 'notify', key]);
      const kind = targets[p.to];
      if (kind === undefined) {
        const choice = known.length
          ? `the settings define ${known.map((n) => `"${n}"`).join(', ')}`
          : 'the settings define no targets yet (notify_targets in config.yml)';
        throw positionedError(at('to'), `rule "${rule.id}": there is no notify target "${p.to}"; ${choice}`);
      }
      if (kind === 'email' && (p.body || p.headers.length > 0))
        throw positionedError(
          at(p.body ? 'body' : 'headers'),
          `rule "${rule.id}": notify target "${p.to}" is an e-mail target; body and headers are for HTTP targets (an e-mail sends title and message)`,
        );
      if (kind === 'http' && p.attach)
        throw positionedError(
          at('attach'),
          `rule "${rule.id}": notify target "${p.to}" is an HTTP target; attach needs an e-mail target`,
        );
    }
  });
}

/** Stage 7: each rule's own `tests:` must pass. */
export async function checkRuleFileTests(prepared: PreparedRuleFile, context: TestContext): Promise<void> {
  for (const [index, compiled] of prepared.compiled.entries())
    await runTestsAt(compiled, index, prepared.source, context);
}

/** What one `_vars.yml` may expand to, in characters of JSON. */
export const MAX_RENDERED_VARS_CHARS = 1_000_000;

export interface VarsContext {
  now: Date;
  env: Record<string, string>;
  /** The global vars a package's `_vars.yml` overrides (empty for the global file). */
  inherited: Record<string, unknown>;
}

export interface RenderedVars {
  /** Inherited vars with this file's over them: what the rules see. */
  vars: Record<string, unknown>;
  /** Only the keys this file defines, rendered (the preview). */
  own: Record<string, unknown>;
}

/** A `_vars.yml`: YAML, schema (a mapping), then its templates rendered (docs/rule-files.md#validation). */
export function renderVarsFile(text: string, context: VarsContext): RenderedVars {
  checkSize(text);
  const source = parseYamlSource(text);
  checkVarsFileSchema(source, source.value);
  const defined = (source.value ?? {}) as Record<string, unknown>;
  const vars = renderVarsAt(defined, source, context);
  const own = Object.fromEntries(Object.keys(defined).map((key) => [key, vars[key]]));
  // Anchors and aliases multiply a small file: bound what it expands to, for the preview and the rules alike.
  const size = JSON.stringify(own).length;
  if (size > MAX_RENDERED_VARS_CHARS) {
    throw new ValidationError(
      `The vars expand to ${size} characters (anchors and aliases included), more than the limit of ${MAX_RENDERED_VARS_CHARS}; use fewer aliases or smaller values.`,
    );
  }
  return { vars, own };
}
