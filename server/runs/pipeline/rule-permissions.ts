import type { DmsForbiddenKind, DmsVocabularyKind } from '../../dms/types.js';
import type { Action, Condition, RuleDefinition } from '../../engine/model.js';
import type { LoadedRule } from '../../rules/rules.js';
import { perObject } from '../../per-object.js';

// A token whose user is no superuser may not view some kinds of Paperless objects. A rule that reads or
// writes such a kind cannot be evaluated truthfully (names are unknown), so it fails in its own trace;
// every other rule runs as usual.

const FIELD_KINDS: Record<string, DmsVocabularyKind> = {
  tags: 'tags',
  correspondent: 'correspondents',
  document_type: 'document_types',
  storage_path: 'storage_paths',
  custom_fields: 'custom_fields',
  owner: 'users',
};

const ACTION_KINDS: Partial<Record<keyof Action, DmsVocabularyKind>> = {
  add_tags: 'tags',
  remove_tags: 'tags',
  set_tags: 'tags',
  set_correspondent: 'correspondents',
  set_document_type: 'document_types',
  set_storage_path: 'storage_paths',
  set_custom_fields: 'custom_fields',
  set_owner: 'users',
};

const PERMISSION_ACTIONS = new Set(['set_permissions', 'add_permissions', 'remove_permissions']);

const KIND_LABELS: Record<DmsVocabularyKind, string> = {
  tags: 'tags',
  correspondents: 'correspondents',
  document_types: 'document types',
  storage_paths: 'storage paths',
  custom_fields: 'custom fields',
  users: 'users',
  groups: 'groups',
};

// Templates read the document as `doc.<field>` (a bare name is an extracted value or a var).
const FIELD_WORD = /(?<![\w.])doc\.(tags|correspondent|document_type|storage_path|custom_fields|owner|permissions)\b/g;
const TEMPLATE_TAG = /\{\{([\s\S]*?)\}\}|\{%([\s\S]*?)%\}/g;

function fieldKind(path: string): DmsVocabularyKind | undefined {
  return FIELD_KINDS[path.replace(/^doc\./, '').split('.')[0]];
}

function conditionKinds(condition: Condition | undefined, kinds: Set<DmsVocabularyKind>, words: Set<string>): void {
  if (!condition || typeof condition !== 'object') return;
  for (const [key, value] of Object.entries(condition)) {
    if (key === 'all' || key === 'any') for (const inner of value as Condition[]) conditionKinds(inner, kinds, words);
    else if (key === 'not') conditionKinds(value as Condition, kinds, words);
    // A computed condition is a Liquid expression as a whole (or a template): every word in it counts.
    else if (key === 'check' && typeof value === 'string')
      for (const word of value.matchAll(FIELD_WORD)) words.add(word[1]);
    else if (key.startsWith('permissions.')) words.add('permissions');
    else {
      const kind = fieldKind(key);
      if (kind) kinds.add(kind);
    }
  }
}

/** Fields a Liquid template reads: only words inside `{{ … }}` / `{% … %}` count, never plain text. */
function templateWords(text: string, words: Set<string>): void {
  for (const tag of text.matchAll(TEMPLATE_TAG)) {
    for (const word of (tag[1] ?? tag[2]).matchAll(FIELD_WORD)) words.add(word[1]);
  }
}

function stringsIn(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, visit);
  else if (value && typeof value === 'object') for (const inner of Object.values(value)) stringsIn(inner, visit);
}

/** The vocabulary kinds a rule names directly, and the `doc.<field>` words its templates and checks read. */
function scan(rule: RuleDefinition): { kinds: Set<DmsVocabularyKind>; words: Set<string> } {
  const kinds = new Set<DmsVocabularyKind>();
  const words = new Set<string>();
  conditionKinds(rule.when, kinds, words);
  for (const extraction of Object.values(rule.extract ?? {})) {
    const source = extraction.from ? fieldKind(extraction.from) : undefined;
    if (source) kinds.add(source);
    stringsIn(extraction.value, (text) => templateWords(text, words));
  }
  for (const action of rule.actions ?? []) {
    conditionKinds(action.if, kinds, words);
    for (const [name, body] of Object.entries(action)) {
      if (name === 'if') continue;
      const kind = ACTION_KINDS[name as keyof Action];
      if (kind) kinds.add(kind);
      if (PERMISSION_ACTIONS.has(name)) words.add('permissions');
      stringsIn(body, (text) => templateWords(text, words));
    }
  }
  return { kinds, words };
}

/**
 * Every vocabulary kind a rule reads (conditions, extraction sources, templates) or writes (actions). A job asks
 * for every document (needsPrincipals, permissionProblem); a definition is never changed once loaded (a reload
 * makes a new one), so it is scanned once.
 */
export const kindsUsedBy = perObject((rule: RuleDefinition): ReadonlySet<DmsVocabularyKind> => {
  const { kinds, words } = scan(rule);
  for (const word of words) {
    // Permissions name users and groups, whether a rule sets them or reads them.
    if (word === 'permissions') kinds.add('users').add('groups');
    else kinds.add(FIELD_KINDS[word]);
  }
  return kinds;
});

/** Whether a rule changes or reads permissions, so its documents must be read with them (`full_perms`). */
export function usesPermissions(rule: RuleDefinition): boolean {
  return scan(rule).words.has('permissions');
}

/** Whether any of these rules names or reads users or groups, so the vocabulary must list them. */
export function needsPrincipals(rules: ReadonlyArray<Pick<LoadedRule, 'definition'>>): boolean {
  return rules.some((rule) => {
    const kinds = kindsUsedBy(rule.definition);
    return kinds.has('users') || kinds.has('groups');
  });
}

/** Why the token cannot run this rule, naming each missing permission; null when it can. */
export function permissionProblem(
  rule: RuleDefinition,
  forbidden: readonly DmsForbiddenKind[] | undefined,
): string | null {
  if (!forbidden?.length) return null;
  const used = kindsUsedBy(rule);
  const missing = forbidden.filter((f) => used.has(f.kind));
  if (missing.length === 0) return null;
  const names = missing.map((f) => `${KIND_LABELS[f.kind]} (${f.permission})`).join(' or ');
  return `The Paperless token may not view ${names}, which this rule uses; give the token's user that permission in Paperless.`;
}

/** The rules the token can run, and the others with the reason. */
export function splitByPermission(rules: LoadedRule[], forbidden: readonly DmsForbiddenKind[] | undefined) {
  const runnable: LoadedRule[] = [];
  const blocked: Array<{ rule: LoadedRule; message: string }> = [];
  for (const rule of rules) {
    const message = permissionProblem(rule.definition, forbidden);
    if (message) blocked.push({ rule, message });
    else runnable.push(rule);
  }
  return { runnable, blocked };
}
