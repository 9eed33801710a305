import type { VocabularyIndex, VocabularyKind } from '../dms/vocabulary-index.js';
import type { Action, Condition, FieldTest, RuleDefinition } from '../engine/model.js';
import { didYouMean } from '../engine/nearest-names.js';
import { isTemplateText } from '../engine/templates.js';
import type { YamlPath } from './yaml-source.js';

/**
 * Validation stage "dms names known" (docs/rule-files.md#validation): every tag, correspondent, document type, storage
 * path, custom field, user and group a rule names must exist in the dms, unless the action may create it
 * (`create_missing: true`). Templated names are only known at run time and are skipped.
 */
export interface NameProblem {
  path: YamlPath;
  message: string;
  /** `key`: the name is the last key of `path` itself (`custom_fields.Betrag:`, a `set_custom_fields` key). */
  at?: 'key';
  /** The name as it stands inside the value at `path` (a custom field named in a `check`). */
  word?: string;
}

const KIND_LABEL: Record<VocabularyKind, string> = {
  tags: 'tag',
  correspondents: 'correspondent',
  document_types: 'document type',
  storage_paths: 'storage path',
  custom_fields: 'custom field',
  users: 'user',
  groups: 'group',
};

const FIELD_KINDS: Record<string, VocabularyKind> = {
  tags: 'tags',
  correspondent: 'correspondents',
  document_type: 'document_types',
  storage_path: 'storage_paths',
  owner: 'users',
  'permissions.view.users': 'users',
  'permissions.view.groups': 'groups',
  'permissions.change.users': 'users',
  'permissions.change.groups': 'groups',
};

const CREATABLE = new Set<VocabularyKind>(['tags', 'correspondents', 'document_types', 'storage_paths']);
/** `doc.custom_fields.Betrag.amount` or `doc.custom_fields['Fällig am'].currency` in a check. */
const MONEY_MEMBER = /doc\.custom_fields(?:\.([\p{L}_][\p{L}\d_]*)|\[\s*(['"])(.*?)\2\s*\])\.(amount|currency)\b/gu;
// Operators whose operands are names (the others compare text, numbers or dates).
const NAME_OPERATORS = new Set(['equals', 'in', 'contains', 'contains_any', 'any', 'all', 'none']);

/** The names the dms has that are near `name` ("did you mean"), else a sample of what it has. */
function suggestion(index: VocabularyIndex, kind: VocabularyKind, name: string): string {
  const names = index.names(kind);
  if (names.length === 0) return ` The dms has no ${KIND_LABEL[kind]}s yet.`;
  const near = didYouMean(name, names);
  if (near) return ` ${near[0].toUpperCase()}${near.slice(1)}`;
  const shown = names
    .slice(0, 12)
    .map((n) => `"${n}"`)
    .join(', ');
  return ` Known ${KIND_LABEL[kind]}s: ${shown}${names.length > 12 ? `, … (${names.length} in all)` : ''}.`;
}

/** Names the file's actions create with `create_missing: true`, by kind, lower-cased. */
function createdNames(rules: ReadonlyArray<RuleDefinition | null>): Map<VocabularyKind, Set<string>> {
  const out = new Map<VocabularyKind, Set<string>>();
  const add = (kind: VocabularyKind, value: unknown) => {
    for (const name of Array.isArray(value) ? value : [value]) {
      if (typeof name === 'string' && name.trim() !== '' && !isTemplateText(name)) {
        if (!out.has(kind)) out.set(kind, new Set());
        out.get(kind)?.add(name.trim().toLocaleLowerCase());
      }
    }
  };
  for (const action of rules.flatMap((r) => r?.actions ?? [])) {
    if (action.create_missing !== true) continue;
    add('tags', action.add_tags);
    add('tags', action.set_tags);
    add('correspondents', action.set_correspondent);
    add('document_types', action.set_document_type);
    add('storage_paths', action.set_storage_path);
  }
  return out;
}

/** Lists the names in `rules` that the dms does not know, with where each one is; null rules are skipped. */
export function findUnknownNames(rules: ReadonlyArray<RuleDefinition | null>, index: VocabularyIndex): NameProblem[] {
  const problems: NameProblem[] = [];
  const created = createdNames(rules);
  const check = (
    kind: VocabularyKind,
    name: unknown,
    path: YamlPath,
    creatable = false,
    place: Pick<NameProblem, 'at' | 'word'> = {},
  ) => {
    if (typeof name !== 'string' || name.trim() === '' || isTemplateText(name)) return;
    if (creatable && CREATABLE.has(kind)) return;
    // A condition may name what an action of the file creates (`not: { tags: { any: [done] } }` beside
    // `add_tags: [done], create_missing: true`): before the first run the dms does not have it yet.
    if (created.get(kind)?.has(name.trim().toLocaleLowerCase())) return;
    // A kind the token may not view is empty here, not missing in the dms: its names cannot be checked.
    if (index.vocabulary.forbidden?.some((f) => f.kind === kind)) return;
    if (index.idOf(kind, name) !== undefined) return;
    const hint =
      CREATABLE.has(kind) && path.includes('actions') ? ' Add "create_missing: true" to the action to create it.' : '';
    problems.push({
      path,
      message: `the dms has no ${KIND_LABEL[kind]} "${name}".${hint}${suggestion(index, kind, name.trim())}`,
      ...place,
    });
  };
  const checkAll = (kind: VocabularyKind, value: unknown, path: YamlPath, creatable = false) => {
    if (Array.isArray(value)) value.forEach((v, i) => check(kind, v, [...path, i], creatable));
    else check(kind, value, path, creatable);
  };

  const walkTest = (kind: VocabularyKind, test: FieldTest, path: YamlPath) => {
    if (test === null || typeof test !== 'object') return checkAll(kind, test, path);
    for (const [op, operand] of Object.entries(test)) {
      if (NAME_OPERATORS.has(op)) checkAll(kind, operand, [...path, op]);
    }
  };

  const walkCondition = (condition: Condition, path: YamlPath) => {
    for (const [key, value] of Object.entries(condition)) {
      const here = [...path, key];
      if (key === 'all' || key === 'any') (value as Condition[]).forEach((c, i) => walkCondition(c, [...here, i]));
      else if (key === 'not') walkCondition(value as Condition, here);
      else if (key === 'check' && typeof value === 'string') checkMoneyMembers(value, here);
      else if (key.startsWith('custom_fields.'))
        check('custom_fields', key.slice('custom_fields.'.length), here, false, { at: 'key' });
      else if (key in FIELD_KINDS) walkTest(FIELD_KINDS[key], value as FieldTest, here);
    }
  };

  // `doc.custom_fields.X.amount` holds only for a monetary field; with the dms's types known that is a save error.
  const checkMoneyMembers = (text: string, path: YamlPath) => {
    for (const m of text.matchAll(MONEY_MEMBER)) {
      const name = m[1] ?? m[3];
      const definition = index.field(name);
      if (!definition) check('custom_fields', name, path, false, { word: m[0] });
      else if (definition.data_type !== 'monetary') {
        problems.push({
          path,
          word: m[0],
          message: `the custom field "${name}" is a ${definition.data_type} field: it has no .${m[4]} (only monetary fields have amount and currency).`,
        });
      }
    }
  };

  const walkAction = (action: Action, path: YamlPath) => {
    const creatable = action.create_missing === true;
    checkAll('tags', action.add_tags, [...path, 'add_tags'], creatable);
    checkAll('tags', action.remove_tags, [...path, 'remove_tags'], true);
    checkAll('tags', action.set_tags, [...path, 'set_tags'], creatable);
    check('correspondents', action.set_correspondent, [...path, 'set_correspondent'], creatable);
    check('document_types', action.set_document_type, [...path, 'set_document_type'], creatable);
    check('storage_paths', action.set_storage_path, [...path, 'set_storage_path'], creatable);
    checkAll('custom_fields', action.add_custom_fields, [...path, 'add_custom_fields']);
    checkAll('custom_fields', action.remove_custom_fields, [...path, 'remove_custom_fields']);
    check('users', action.set_owner, [...path, 'set_owner']);
    for (const key of ['set_permissions', 'add_permissions', 'remove_permissions'] as const) {
      const body = action[key];
      if (typeof body !== 'object' || body === null) continue;
      for (const [kind, lists] of Object.entries(body)) {
        for (const [target, names] of Object.entries(lists ?? {}))
          checkAll(target === 'users' ? 'users' : 'groups', names, [...path, key, kind, target]);
      }
    }
    for (const [field, value] of Object.entries(action.set_custom_fields ?? {})) {
      const here = [...path, 'set_custom_fields', field];
      check('custom_fields', field, here, false, { at: 'key' });
      const definition = isTemplateText(field) ? undefined : index.field(field);
      const options = definition?.data_type === 'select' ? (definition.extra_data.select_options ?? []) : [];
      if (options.length > 0 && typeof value === 'string' && !isTemplateText(value) && value !== '') {
        if (!options.some((o) => o.label.toLowerCase() === value.toLowerCase())) {
          problems.push({
            path: here,
            message: `"${value}" is not an option of the select field "${field}"; options: ${options.map((o) => `"${o.label}"`).join(', ')}.`,
          });
        }
      }
    }
  };

  rules.forEach((rule, r) => {
    if (!rule) return;
    const base: YamlPath = ['rules', r];
    if (rule.when) walkCondition(rule.when, [...base, 'when']);
    for (const [name, extraction] of Object.entries(rule.extract ?? {})) {
      const from = extraction.from ?? '';
      if (from.startsWith('custom_fields.'))
        check('custom_fields', from.slice('custom_fields.'.length), [...base, 'extract', name, 'from']);
      // A query names what it filters and sorts by like a condition does.
      const field = extraction.field ?? '';
      if (field.startsWith('custom_fields.'))
        check('custom_fields', field.slice('custom_fields.'.length), [...base, 'extract', name, 'field']);
      for (const [key, test] of Object.entries(extraction.where ?? {}))
        walkCondition({ [key]: test }, [...base, 'extract', name, 'where']);
    }
    (rule.actions ?? []).forEach((action, a) => {
      if (action.if) walkCondition(action.if, [...base, 'actions', a, 'if']);
      walkAction(action, [...base, 'actions', a]);
    });
  });
  return problems;
}
