// Autocomplete for rule files: keys valid at the cursor, operators, actions, enum values, and the dms's
// real names where a rule names a tag, correspondent, document type, storage path or custom field.
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { isMapping, keysOf, scalarsOf, schemaAt, type SchemaNode } from './schema-walk.js';
import { templateOptions } from './template-completion.js';
import type { LanguageWords, Vocabulary } from './vocabulary.js';
import { ITEM, yamlContextAt } from './yaml-context.js';

const VOCABULARY_FOR: Record<string, keyof Vocabulary> = {
  tags: 'tags',
  add_tags: 'tags',
  remove_tags: 'tags',
  set_tags: 'tags',
  correspondent: 'correspondents',
  set_correspondent: 'correspondents',
  document_type: 'document_types',
  set_document_type: 'document_types',
  storage_path: 'storage_paths',
  set_storage_path: 'storage_paths',
  add_custom_fields: 'custom_fields',
  remove_custom_fields: 'custom_fields',
  owner: 'users',
  set_owner: 'users',
  // Inside set_permissions / add_permissions / remove_permissions (and a test document's permissions).
  users: 'users',
  groups: 'groups',
};

// Operators sit between a field and its value: `tags: { any: [...] }` still completes tag names.
const PASS_THROUGH = new Set([
  ITEM,
  'equals',
  'in',
  'contains',
  'contains_any',
  'starts_with',
  'ends_with',
  'any',
  'all',
  'none',
]);
const FROM_FIELDS = ['content', 'title', 'original_file_name', 'notes'];
/** Common values for an extraction's `locale:`; any tag Intl knows is accepted. */
const LOCALES = ['de', 'de-AT', 'de-CH', 'en', 'en-GB', 'en-US', 'es', 'fr', 'it', 'nl', 'pl', 'pt'];

/** Which dms names fit a value at this path, if any. */
/** A description's first sentence, short enough to stand beside the key in the list (the full text is the item's info). */
export function oneLine(description: string | undefined, max = 60): string | undefined {
  if (!description) return undefined;
  const first = description.split(/(?<=[.:;])\s|\n/)[0].replace(/[.:;]$/, '');
  return first.length > max ? `${first.slice(0, max - 1).trimEnd()}…` : first;
}

export function vocabularyKind(path: string[]): keyof Vocabulary | null {
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i] === 'to' && path[i - 1] === 'notify') return 'notify_targets';
    const kind = VOCABULARY_FOR[path[i]];
    if (kind) return kind;
    if (!PASS_THROUGH.has(path[i])) return null;
  }
  return null;
}

/** YAML needs quotes around names that would read as something else (`a: b`, `#`, `true`, `12`). */
export function yamlScalar(name: string): string {
  const plain = /^[^\s\-?:,[\]{}#&*!|>'"%@`][^#]*$/.test(name) && !/:\s|\s$/.test(name);
  const ambiguous = /^(true|false|null|yes|no|on|off|~|[-+]?[\d.]+(e[-+]?\d+)?)$/i.test(name);
  return plain && !ambiguous ? name : JSON.stringify(name);
}

export interface CompletionData {
  schema: SchemaNode | null;
  vocabulary: Vocabulary;
  /** The language's words by kind (operators per field kind, modifiers, template names); optional. */
  language?: LanguageWords;
  /** Names of the vars rules see, for `{{ vars.… }}`. */
  vars?: string[];
}

/** Fields that hold numbers or dates: the only ones compared with gt/gte/lt/lte. */
const ORDERED_FIELDS = new Set(['id', 'created', 'added', 'modified', 'archive_serial_number', 'page_count']);
/** Which actions a modifier applies to (docs/rules.md, "Action modifiers"); a modifier not listed (if_changed) fits every action. */
const MODIFIER_ACTIONS: Record<string, string[]> = {
  if_empty: ['set_custom_fields'],
  create_missing: ['add_tags', 'set_tags', 'set_correspondent', 'set_document_type', 'set_storage_path'],
  path: ['set_storage_path'],
};

/** The operators that make sense for this field: tag operators for tags only, comparisons for numbers and dates. */
function fitsField(field: string, key: string, words: LanguageWords): boolean {
  if (field === 'tags') return words.tag_operators.includes(key) || ['exists', 'empty', 'case_sensitive'].includes(key);
  if (words.tag_operators.includes(key)) return false;
  if (words.comparison_operators.includes(key)) return ORDERED_FIELDS.has(field) || field.startsWith('custom_fields.');
  return true;
}

/** The action of the sequence item a continuation line belongs to (`- set_custom_fields: …` above it). */
function actionAbove(lines: string[], line: number, column: number): string | null {
  for (let i = line - 1; i >= 0; i--) {
    const m = /^(\s*)-\s+([a-z_]+):/.exec(lines[i]);
    if (m && m[1].length < column) return m[2];
    if (lines[i].trim() !== '' && lines[i].length - lines[i].trimStart().length < column - 2) return null;
  }
  return null;
}

/** The options for a context; separate from CodeMirror so it can be reasoned about on its own. */
export function optionsFor(
  data: CompletionData,
  text: string,
  line: number,
  column: number,
): { from: number; options: Completion[] } | null {
  if (!data.schema) return null;
  const lines = text.split('\n');
  if (data.language) {
    const names = { words: data.language, customFields: data.vocabulary.custom_fields, vars: data.vars ?? [] };
    const template = templateOptions(text, (lines[line] ?? '').slice(0, column), names);
    if (template) return template.options.length ? { from: column - template.back, options: template.options } : null;
  }
  const ctx = yamlContextAt(text, line, column);
  if (!ctx) return null;
  const nodes = schemaAt(data.schema, ctx.path);
  const options: Completion[] = [];
  const last = ctx.path[ctx.path.length - 1];
  const quoted = ctx.prefix !== '' && /^["']/.test(text.split('\n')[line]?.[ctx.fromColumn - 1] ?? '');

  if (ctx.kind === 'key' && isMapping(nodes)) {
    let keys = keysOf(data.schema, nodes);
    const words = data.language;
    if (words && last && (words.fields.includes(last) || last.startsWith('custom_fields.'))) {
      keys = keys.filter((k) => fitsField(last, k.key, words));
      if (last === 'tags')
        keys.sort((a, b) => Number(words.tag_operators.includes(b.key)) - Number(words.tag_operators.includes(a.key)));
    }
    if (words && last === ITEM && ctx.path[ctx.path.length - 2] === 'actions') {
      // On the item's `- ` line an action is chosen; below it, only the modifiers that action takes.
      const onDash = /-\s*$/.test((lines[line] ?? '').slice(0, ctx.fromColumn));
      const action = onDash ? null : actionAbove(lines, line, ctx.fromColumn);
      keys = keys.filter((k) =>
        words.action_modifiers.includes(k.key)
          ? !onDash && action !== null && (MODIFIER_ACTIONS[k.key]?.includes(action) ?? true)
          : onDash,
      );
    }
    for (const k of keys) {
      options.push({
        label: k.key,
        type: 'property',
        detail: oneLine(k.description),
        info: k.description,
        apply: k.nested ? `${k.key}:` : `${k.key}: `,
      });
    }
    if (last === 'set_custom_fields') {
      for (const name of data.vocabulary.custom_fields)
        options.push({ label: name, type: 'variable', detail: 'custom field', apply: `${yamlScalar(name)}: ` });
    }
    if (
      nodes.some(
        (n) => n.patternProperties && Object.keys(n.patternProperties).some((p) => p.includes('custom_fields')),
      )
    ) {
      for (const name of data.vocabulary.custom_fields) {
        const key = `custom_fields.${name}`;
        options.push({ label: key, type: 'variable', detail: 'custom field', apply: `${yamlScalar(key)}: ` });
      }
    }
  } else {
    const kind = vocabularyKind(ctx.path);
    // A field compared with a name: true/false would be legal YAML but never what is meant.
    for (const value of scalarsOf(nodes))
      if (!kind || !['true', 'false'].includes(value)) options.push({ label: value, type: 'enum' });
    if (kind) {
      const detail = kind.replace(/_/g, ' ').replace(/s$/, '');
      for (const name of data.vocabulary[kind])
        options.push({ label: name, type: 'constant', detail, apply: quoted ? name : yamlScalar(name) });
    }
    // `expect: { unchanged: [custom_fields.Betrag] }` names fields.
    if (ctx.path.includes('unchanged'))
      for (const f of data.language?.fields ?? [])
        options.push({ label: f, type: 'enum', apply: quoted ? f : yamlScalar(f) });
    if (last === 'locale') for (const l of LOCALES) options.push({ label: l, type: 'enum', detail: 'language' });
    // `query: max` / `min` reads a custom field too.
    if (last === 'field' && ctx.path.includes('extract')) {
      for (const f of data.vocabulary.custom_fields.map((n) => `custom_fields.${n}`))
        options.push({ label: f, type: 'enum', apply: quoted ? f : yamlScalar(f) });
    }
    if (last === 'from') {
      for (const f of [...FROM_FIELDS, ...data.vocabulary.custom_fields.map((n) => `custom_fields.${n}`)])
        options.push({ label: f, type: 'enum', apply: quoted ? f : yamlScalar(f) });
    }
  }
  return options.length ? { from: ctx.fromColumn, options } : null;
}

/** A CodeMirror completion source reading the current schema and vocabulary from `getData`. */
export function schemaCompletion(getData: () => CompletionData): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const word = context.matchBefore(/[\w.\- ]*$/);
    // Open by itself only after a word character, `- `, `: `, `[`, `{`, `,`, `{{ ` or `| `; never on a bare new
    // line, where Enter must make another line, not accept a suggestion. Ctrl-Space always opens it.
    const before = line.text.slice(0, context.pos - line.from);
    if (!context.explicit && (word?.text.trim() ?? '') === '' && !/(\S-\s|-\s|:\s|[[{,|]\s*)$/.test(before))
      return null;
    const result = optionsFor(getData(), context.state.doc.toString(), line.number - 1, context.pos - line.from);
    if (!result) return null;
    return { from: line.from + result.from, options: result.options, validFor: /^[\w.\- ]*$/ };
  };
}
