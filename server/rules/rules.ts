/** The rules store (docs/rule-files.md): rule files in rules.d, drafts, packages, vars, validation, reload. */
export { createRuleStore } from './rule-store.js';
export type {
  RuleStore,
  RuleStoreOptions,
  RuleFileEntry,
  RuleFileContent,
  ReloadReport,
  DraftValidation,
} from './rule-store-types.js';
export type { LoadedRule, FileError } from './rules-loader.js';
export { MAX_RULE_FILE_BYTES } from './validate-file.js';
export { inlineRuleTests, type RuleTestRunner } from './engine-stages.js';
export { fileIdOf, VARS_FILE_NAME } from './file-names.js';
export type { SchemaInfo } from './schema-info.js';
export { findUnknownNames } from './dms-names.js';
