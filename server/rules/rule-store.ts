import fsp from 'node:fs/promises';
import YAML from 'yaml';
import { BadRequestError, ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '../app-errors.js';
import { createEmptyFile, writeFileAtomic } from '../atomic-write.js';
import { inlineRuleTests } from './engine-stages.js';
import { FileValidationError } from './file-problems.js';
import { createDraftStore } from './drafts.js';
import { fileIdOf, isRuleFilePath, parseRuleFilePath, pathOfFileId, type RuleFilePath } from './file-names.js';
import { loadRulesDir, type LoadedRule, type LoadState } from './rules-loader.js';
import type { DraftValidation, ReloadReport, RuleStore, RuleStoreOptions } from './rule-store-types.js';
import { createRulesDir } from './rules-dir.js';
import { watchRulesDir, type RulesWatcher } from './rules-watcher.js';
import { seedExampleRules } from './seed-examples.js';
import { dmsNames, schemaInfo } from './schema-info.js';
import { createSaveValidator, type SaveContext } from './save-validation.js';
import { MAX_RULE_FILE_BYTES, inspectRuleFile, renderVarsFile } from './validate-file.js';
import { rulesOfText, testReports, withFileReplaced } from './text-check.js';
import { errorMessage } from '../error-message.js';

const entryOf = (file: RuleFilePath) => ({ id: fileIdOf(file.path), name: file.name, path: file.path });

/** Creates the store and loads the rules dir once (call before listening). */
export async function createRuleStore(options: RuleStoreOptions): Promise<RuleStore> {
  const { logger } = options;
  const now = options.now ?? (() => new Date());
  const dir = createRulesDir(options.rulesDir, logger);
  const drafts = createDraftStore(options.dataDir);
  const runTests = options.runTests ?? inlineRuleTests;
  const validator = createSaveValidator(options.vocabulary, options.dmsTimeoutMs ?? 5000, runTests);
  const listeners = new Set<(report: ReloadReport) => void>();
  let state: LoadState = { files: [], rules: [], vars: new Map([['', {}]]), lastGood: new Map() };
  let byId = new Map<string, LoadedRule>();
  let watcher: RulesWatcher | undefined;

  // One queue for reloads and writes, so a save never interleaves with a reload or another save.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  async function reloadNow(): Promise<ReloadReport> {
    let unreadable: string | null = null;
    try {
      state = await loadRulesDir(dir, state.lastGood, {
        now: now(),
        env: options.templateEnv,
        notifyTargets: options.notifyTargets?.(),
        runTests,
      });
      byId = new Map(state.rules.map((r) => [r.id, r]));
    } catch (err) {
      // Never replace loaded rules with nothing because the folder could not be read (docs/rule-files.md#loading-and-reload).
      unreadable = `The rules dir ${dir.root} could not be read (${errorMessage(err)}); the rules loaded before stay in use.`;
    }
    const errors = state.files.filter((f) => f.error).map((f) => ({ path: f.file.path, error: f.error!.message }));
    if (unreadable) errors.unshift({ path: '', error: unreadable });
    // Re-attach to folders created (by a create, or a recreated rules dir) since the last event.
    watcher?.sync();
    for (const e of errors) logger.warn(`rules: ${e.path}: ${e.error}`);
    const report = { files: state.files.length, rules: state.rules.length, errors };
    for (const listener of listeners) {
      try {
        listener(report);
      } catch (err) {
        logger.error(`rules: a reload listener failed: ${errorMessage(err)}`);
      }
    }
    return report;
  }

  /** The checked path and absolute path of an existing file; 404 for anything else (ids are opaque). */
  async function existing(id: string): Promise<{ file: RuleFilePath; abs: string }> {
    const file = pathOfFileId(id);
    const abs = file && (await dir.resolve(file));
    if (file && abs) {
      const stat = await fsp.stat(abs).catch(() => null);
      if (stat?.isFile()) return { file, abs };
    }
    throw new NotFoundError(
      `No rule file with id "${id.slice(0, 80)}"; the Rules page lists the rule files there are.`,
    );
  }

  function checkSize(content: string): void {
    if (Buffer.byteLength(content, 'utf8') > MAX_RULE_FILE_BYTES) {
      throw new PayloadTooLargeError(
        `A rule file may be at most ${MAX_RULE_FILE_BYTES / 1024} KB; split it into several files.`,
      );
    }
  }

  const varsFor = (pkg: string | null) => state.vars.get(pkg ?? '') ?? state.vars.get('') ?? {};

  const saveContext = (file: RuleFilePath): SaveContext => ({
    now: now(),
    env: options.templateEnv,
    takenIds: new Map([...byId.values()].filter((r) => r.file !== file.path).map((r) => [r.id, r.file])),
    vars: varsFor(file.package),
    globalVars: varsFor(null),
    notifyTargets: options.notifyTargets?.(),
  });
  const validate = (file: RuleFilePath, content: string) => validator.validate(file, content, saveContext(file));

  /** Every save stage run on text that is not stored; a failure is reported, not thrown. */
  async function validation(file: RuleFilePath, content: string): Promise<DraftValidation> {
    try {
      return { ok: true, warnings: await validate(file, content) };
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      return {
        ok: false,
        error: err.message,
        line: err.line,
        column: err.column,
        problems: err.problems,
        warnings: err instanceof FileValidationError ? [...err.warnings] : [],
      };
    }
  }

  async function ruleFileOf(id: string): Promise<RuleFilePath> {
    const { file } = await existing(id);
    if (file.isVars) throw new BadRequestError(`"${file.path}" is a vars file: it has no rules to run or test.`);
    return file;
  }

  const store: RuleStore = {
    loadedRules: () => state.rules,
    getRule: (id) => byId.get(id),
    reload: () => exclusive(reloadNow),
    onReload(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    listFiles() {
      const files = state.files.map(({ file, error, ruleIds }) => ({
        ...entryOf(file),
        package: file.package,
        is_vars: file.isVars,
        has_draft: drafts.has(file),
        error,
        rules: ruleIds,
      }));
      return { files, loaded: Object.fromEntries(state.rules.map((r) => [r.id, r.description])) };
    },

    async readFile(id, { draft = false } = {}) {
      const { file, abs } = await existing(id);
      const content = draft ? await drafts.read(file) : await fsp.readFile(abs, 'utf8');
      if (content === null) throw new NotFoundError(`"${file.path}" has no draft.`);
      return { ...entryOf(file), content };
    },

    createFile: (filename) =>
      exclusive(async () => {
        const file = parseRuleFilePath(typeof filename === 'string' ? filename.trim() : '');
        if (!isRuleFilePath(file)) throw new BadRequestError(file.problem);
        const abs = await dir.resolve(file);
        if (abs === null)
          throw new BadRequestError(`Invalid file name "${file.path}": its folder leads outside the rules directory.`);
        if (!(await createEmptyFile(abs)))
          throw new ConflictError(`"${file.path}" already exists; open it instead, or choose another name.`);
        await reloadNow();
        return entryOf(file);
      }),

    saveFile: (id, content) => {
      checkSize(content);
      return exclusive(async () => {
        const { file, abs } = await existing(id);
        const warnings = await validate(file, content);
        await writeFileAtomic(abs, content);
        await drafts.remove(file);
        await reloadNow();
        return { warnings };
      });
    },

    async saveDraft(id, content) {
      checkSize(content);
      // In the write queue, so an autosave racing a publish cannot bring back the draft the publish removed. A
      // draft of the published text is none: an autosave that reaches the service after the publish of the same
      // text leaves no draft behind.
      const file = await exclusive(async () => {
        const { file: found, abs } = await existing(id);
        if (content === (await fsp.readFile(abs, 'utf8'))) await drafts.remove(found);
        else await drafts.write(found, content);
        return found;
      });
      return { validation: await validation(file, content) };
    },

    async checkText(id, content) {
      checkSize(content);
      const { file } = await existing(id);
      const result = await validation(file, content);
      if (file.isVars) return { validation: result, tests: [] };
      const context = saveContext(file);
      let prepared;
      try {
        // Every rule that compiles runs its tests, even beside a rule with a problem.
        prepared = inspectRuleFile(content, { takenIds: context.takenIds });
      } catch (err) {
        if (err instanceof ValidationError) return { validation: result, tests: [] }; // the validation says why
        throw err;
      }
      return {
        validation: result,
        tests: await testReports(prepared, { now: context.now, vars: context.vars, runTests }),
      };
    },

    async rulesForTry(id, content) {
      checkSize(content);
      const file = await ruleFileOf(id);
      const context = saveContext(file);
      return withFileReplaced(state.rules, file.path, rulesOfText(file, content, context.takenIds, context.vars));
    },

    deleteFile: (id) =>
      exclusive(async () => {
        const { file, abs } = await existing(id);
        await fsp.rm(abs);
        await drafts.remove(file);
        await reloadNow();
      }),

    deleteDraft: (id) =>
      exclusive(async () => {
        const { file } = await existing(id);
        if (!(await drafts.remove(file))) throw new NotFoundError(`"${file.path}" has no draft.`);
      }),

    async previewVars(id, content) {
      checkSize(content);
      const { file } = await existing(id);
      if (!file.isVars)
        throw new BadRequestError(`Preview is only for _vars.yml files; "${file.path}" is a rule file.`);
      const inherited = file.package === null ? {} : varsFor(null);
      return YAML.stringify(renderVarsFile(content, { now: now(), env: options.templateEnv, inherited }).own);
    },

    async schema() {
      const { vocabulary, error } = await validator.fetchVocabulary();
      const varNames = new Set([...state.vars.values()].flatMap((vars) => Object.keys(vars)));
      return schemaInfo(dmsNames(vocabulary, error), [...varNames].sort());
    },

    async close() {
      watcher?.close();
      await queue;
    },
  };

  await fsp.mkdir(options.rulesDir, { recursive: true });
  if (options.examplesDir) seedExampleRules(options.rulesDir, options.examplesDir, logger);
  await store.reload();
  if (options.watch !== false) {
    watcher = watchRulesDir(
      dir.root,
      () => void store.reload().catch((err: unknown) => logger.error(`rules: reload failed: ${errorMessage(err)}`)),
      logger,
      options.watchDebounceMs,
    );
  }
  return store;
}
