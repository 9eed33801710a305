import fsp from 'node:fs/promises';
import { ValidationError } from '../app-errors.js';
import type { RuleDefinition } from '../engine/model.js';
import { inlineRuleTests, type CompiledRule, type RuleTestRunner } from './engine-stages.js';
import type { RuleFilePath } from './file-names.js';
import type { RulesDir } from './rules-dir.js';
import { checkRuleFileTests, prepareRuleFile, renderVarsFile, type NotifyTargetKinds } from './validate-file.js';
import { errorMessage } from '../error-message.js';

/** One loaded rule, as runs use it. */
export interface LoadedRule {
  id: string;
  description: string | null;
  /** Path of its file relative to the rules dir. */
  file: string;
  package: string | null;
  definition: RuleDefinition;
  compiled: CompiledRule;
  /** Global vars overridden by the package's. */
  vars: Record<string, unknown>;
}

export interface FileError {
  message: string;
  line: number | null;
  column: number | null;
}

export interface FileState {
  file: RuleFilePath;
  error: FileError | null;
  /** Ids of the rules loaded from this file (from the last good version when the file is now broken). */
  ruleIds: string[];
}

/** What the last successful load of a file produced; kept so a file broken on disk keeps its rules. */
export type LastGood = Map<
  string,
  { rules?: Array<{ definition: RuleDefinition; compiled: CompiledRule }>; vars?: Record<string, unknown> }
>;

export interface LoadState {
  files: FileState[];
  rules: LoadedRule[];
  /** Rendered vars per package (`''` = global, merged into each package). */
  vars: Map<string, Record<string, unknown>>;
  lastGood: LastGood;
}

export interface LoadContext {
  now: Date;
  env: Record<string, string>;
  /** Target names `notify` may use; undefined: not checked. */
  notifyTargets?: NotifyTargetKinds;
  /** Default: on the calling thread. */
  runTests?: RuleTestRunner;
}

const toFileError = (err: unknown): FileError =>
  err instanceof ValidationError
    ? { message: err.message, line: err.line ?? null, column: err.column ?? null }
    : { message: errorMessage(err), line: null, column: null };

/**
 * Loads every file of the rules dir: vars first (global, then each package's over it), then rule
 * files in path order. A file that fails is listed with its error and keeps what its last good
 * version loaded; duplicate ids make the later file the one in error (docs/rule-files.md#validation).
 */
export async function loadRulesDir(dir: RulesDir, previous: LastGood, context: LoadContext): Promise<LoadState> {
  const files = await dir.list();
  const lastGood: LastGood = new Map();
  const states = new Map<string, FileState>(files.map((file) => [file.path, { file, error: null, ruleIds: [] }]));
  const read = async (file: RuleFilePath): Promise<string> => {
    const abs = await dir.resolve(file);
    if (abs === null) throw new Error('the file leads outside the rules dir and is ignored');
    return fsp.readFile(abs, 'utf8');
  };

  const vars = new Map<string, Record<string, unknown>>();
  const loadVars = async (file: RuleFilePath | undefined, key: string, inherited: Record<string, unknown>) => {
    let own: Record<string, unknown> = {};
    if (file) {
      try {
        own = renderVarsFile(await read(file), { now: context.now, env: context.env, inherited }).own;
        lastGood.set(file.path, { vars: own });
      } catch (err) {
        states.get(file.path)!.error = toFileError(err);
        own = previous.get(file.path)?.vars ?? {};
        if (previous.get(file.path)) lastGood.set(file.path, previous.get(file.path)!);
      }
    }
    vars.set(key, { ...inherited, ...own });
  };
  await loadVars(
    files.find((f) => f.package === null && f.isVars),
    '',
    {},
  );
  const packages = [...new Set(files.map((f) => f.package).filter((p): p is string => p !== null))];
  for (const pkg of packages)
    await loadVars(
      files.find((f) => f.package === pkg && f.isVars),
      pkg,
      vars.get('')!,
    );

  const rules: LoadedRule[] = [];
  const takenIds = new Map<string, string>();
  for (const file of files.filter((f) => !f.isVars)) {
    const state = states.get(file.path)!;
    const fileVars = vars.get(file.package ?? '') ?? vars.get('')!;
    let loaded: Array<{ definition: RuleDefinition; compiled: CompiledRule }> | undefined;
    try {
      const prepared = prepareRuleFile(await read(file), { takenIds, notifyTargets: context.notifyTargets });
      await checkRuleFileTests(prepared, {
        now: context.now,
        vars: fileVars,
        runTests: context.runTests ?? inlineRuleTests,
      });
      loaded = prepared.definitions.map((definition, i) => ({ definition, compiled: prepared.compiled[i] }));
      lastGood.set(file.path, { rules: loaded });
    } catch (err) {
      state.error = toFileError(err);
      const fallback = previous.get(file.path)?.rules;
      if (fallback && fallback.every((r) => !takenIds.has(r.definition.id))) {
        loaded = fallback;
        lastGood.set(file.path, { rules: fallback });
      }
    }
    for (const { definition, compiled } of loaded ?? []) {
      takenIds.set(definition.id, file.path);
      state.ruleIds.push(definition.id);
      rules.push({
        id: definition.id,
        description: definition.description ?? null,
        file: file.path,
        package: file.package,
        definition,
        compiled,
        vars: fileVars,
      });
    }
  }
  return { files: files.map((f) => states.get(f.path)!), rules, vars, lastGood };
}
