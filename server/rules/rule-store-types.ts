import type { NotifyTargetKinds } from './validate-file.js';
import type { RuleTestRunner } from './engine-stages.js';
import type { DmsVocabulary } from '../dms/types.js';
import type { FileProblem } from '../app-errors.js';
import type { Logger } from '../log.js';
import type { FileError, LoadedRule } from './rules-loader.js';
import type { SchemaInfo } from './schema-info.js';
import type { RuleTestReport } from './text-check.js';

/** The rules store's contract: what routes, runs and the composition root rely on. */

export interface RuleFileEntry {
  id: string;
  name: string;
  path: string;
  package: string | null;
  is_vars: boolean;
  has_draft: boolean;
  /** Why the file did not load (its last good rules stay loaded), or null. */
  error: FileError | null;
  /** Ids of the rules loaded from this file. */
  rules: string[];
}

export interface RuleFileContent {
  id: string;
  name: string;
  path: string;
  content: string;
}

export interface ReloadReport {
  files: number;
  rules: number;
  errors: Array<{ path: string; error: string }>;
}

/** A draft's validation, reported but not blocking (docs/rule-files.md#drafts). */
export interface DraftValidation {
  ok: boolean;
  error?: string;
  line?: number;
  column?: number;
  /** Every problem of the text, each with the range to underline (the first is `error`/`line`/`column`). */
  problems?: readonly FileProblem[];
  warnings: string[];
}

export interface RuleStoreOptions {
  rulesDir: string;
  dataDir: string;
  logger: Logger;
  /** SVC_VAR_* variables, the `env` of `_vars.yml` templates. */
  templateEnv: Record<string, string>;
  /** The dms vocabulary, for name checks on save and editor completion; rejects when the dms is down. */
  vocabulary: () => Promise<DmsVocabulary>;
  now?: () => Date;
  /** Example rules copied into the rules dir when it is empty (first start). */
  examplesDir?: string;
  /** Targets `notify` actions may use, name → kind (http, email); without it they are not checked. */
  notifyTargets?: () => NotifyTargetKinds;
  /** Watch the rules dir for external edits (default true). */
  watch?: boolean;
  watchDebounceMs?: number;
  /** How long a save waits for the dms before name checks are skipped with a warning (default 5 s). */
  dmsTimeoutMs?: number;
  /** Runs rules' `tests:` (at load, on save, in the editor); default: on the calling thread. */
  runTests?: RuleTestRunner;
}

export interface RuleStore {
  /** Files in path order, rules in list order, disabled ones included. */
  loadedRules(): LoadedRule[];
  getRule(id: string): LoadedRule | undefined;
  reload(): Promise<ReloadReport>;
  /** Called after every reload; returns an unsubscribe function. */
  onReload(listener: (report: ReloadReport) => void): () => void;
  listFiles(): { files: RuleFileEntry[]; loaded: Record<string, string | null> };
  readFile(id: string, options?: { draft?: boolean }): Promise<RuleFileContent>;
  createFile(filename: string): Promise<{ id: string; name: string; path: string }>;
  /** Validates every stage, then writes atomically, removes the draft and reloads. */
  saveFile(id: string, content: string): Promise<{ warnings: string[] }>;
  saveDraft(id: string, content: string): Promise<{ validation: DraftValidation }>;
  deleteFile(id: string): Promise<void>;
  deleteDraft(id: string): Promise<void>;
  /** Every save stage on posted text (nothing stored), and each `tests:` example's outcome at its line. */
  checkText(id: string, content: string): Promise<{ validation: DraftValidation; tests: RuleTestReport[] }>;
  /** The loaded rules with this file's replaced by the rules of posted text (its unsaved or draft version). */
  rulesForTry(id: string, content: string): Promise<LoadedRule[]>;
  /** Renders posted `_vars.yml` text as it would load; returns YAML. */
  previewVars(id: string, content: string): Promise<string>;
  schema(): Promise<SchemaInfo>;
  close(): Promise<void>;
}
