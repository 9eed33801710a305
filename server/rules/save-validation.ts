import type { DmsVocabulary } from '../dms/types.js';
import { createVocabularyIndex } from '../dms/vocabulary-index.js';
import { errorMessage } from '../error-message.js';
import { findUnknownNames, type NameProblem } from './dms-names.js';
import { findConditionTemplates } from './condition-templates.js';
import { testNameComments } from './test-name-comments.js';
import { findStoragePathTemplates } from './storage-path-warnings.js';
import type { RuleFilePath } from './file-names.js';
import type { RuleTestRunner } from './engine-stages.js';
import { collectTestProblems, inspectRuleFile, renderVarsFile, type NotifyTargetKinds } from './validate-file.js';
import type { Span, YamlSource } from './yaml-source.js';

/** What a save is checked against: the other files' rule ids and the vars the file's rules will see. */
export interface SaveContext {
  now: Date;
  env: Record<string, string>;
  takenIds: ReadonlyMap<string, string>;
  /** Vars for the file's package (global merged with the package's). */
  vars: Record<string, unknown>;
  /** Global vars, inherited by a package's `_vars.yml`. */
  globalVars: Record<string, unknown>;
  notifyTargets?: NotifyTargetKinds;
}

export interface SaveValidator {
  /** Every stage of docs/rule-files.md#validation in order; throws a positioned ValidationError, returns warnings. */
  validate(file: RuleFilePath, content: string, context: SaveContext): Promise<string[]>;
  /** The dms vocabulary, or why it could not be had (bounded by the timeout). */
  fetchVocabulary(): Promise<{ vocabulary: DmsVocabulary | null; error: string | null }>;
}

/** After the dms failed, saves skip asking it for this long, so each save does not wait out the timeout again. */
const DMS_DOWN_MEMORY_MS = 10_000;

export function createSaveValidator(
  vocabulary: () => Promise<DmsVocabulary>,
  timeoutMs: number,
  runTests: RuleTestRunner,
): SaveValidator {
  let lastFailure: { at: number; error: string } | null = null;

  async function fetchVocabulary(): Promise<{ vocabulary: DmsVocabulary | null; error: string | null }> {
    if (lastFailure && Date.now() - lastFailure.at < DMS_DOWN_MEMORY_MS)
      return { vocabulary: null, error: lastFailure.error };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      const vocab = await Promise.race([vocabulary(), timeout]);
      lastFailure = null;
      return { vocabulary: vocab, error: null };
    } catch (err) {
      lastFailure = { at: Date.now(), error: `The dms could not be reached: ${errorMessage(err)}` };
      return { vocabulary: null, error: lastFailure.error };
    } finally {
      clearTimeout(timer);
    }
  }

  async function validate(file: RuleFilePath, content: string, context: SaveContext): Promise<string[]> {
    if (file.isVars) {
      const inherited = file.package === null ? {} : context.globalVars;
      renderVarsFile(content, { now: context.now, env: context.env, inherited });
      return [];
    }
    const inspected = inspectRuleFile(content, { takenIds: context.takenIds, notifyTargets: context.notifyTargets });
    const { problems, source } = inspected;
    const { vocabulary, error } = await fetchVocabulary();
    if (vocabulary) {
      for (const unknown of findUnknownNames(inspected.checked, createVocabularyIndex(vocabulary)))
        problems.add(placeOf(source, unknown), unknown.message);
    }
    await collectTestProblems(source, inspected.compiled, { now: context.now, vars: context.vars, runTests }, problems);
    const uses = [...findConditionTemplates(inspected.checked), ...findStoragePathTemplates(inspected.checked)];
    const warnings = [
      ...uses.map((use) => ({ at: source.positionOf(use.path), message: use.message })),
      ...testNameComments(inspected.checked, source),
    ]
      .sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column)
      .map(({ at, message }) => `line ${at.line}, column ${at.column}: ${message}`);
    const forbidden = (vocabulary?.forbidden ?? []).map(
      (f) =>
        `The dms token may not view ${f.kind.replace('_', ' ')} (${f.permission}): those names were not checked, and rules that use them fail until the token has the permission.`,
    );
    const all = error
      ? [
          `${error}. Tag, correspondent, document type, storage path and custom field names were not checked.`,
          ...warnings,
        ]
      : [...forbidden, ...warnings];
    // A refused file still shows its warnings beside its problems (in a draft or check answer).
    problems.throwIfAny(all);
    return all;
  }

  return { validate, fetchVocabulary };
}

/** An unknown custom field underlines its key; a name inside a check, that name; anything else, the value. */
function placeOf(source: YamlSource, problem: NameProblem): Span {
  if (problem.at === 'key') return source.keyPositionOf(problem.path.slice(0, -1), String(problem.path.at(-1)));
  if (problem.word) return source.wordPositionOf(problem.path, problem.word);
  return source.positionOf(problem.path);
}
