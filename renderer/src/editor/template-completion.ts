// Completion inside `{{ … }}`: extracted names, doc.* fields, vars.* names, filters after `|`. Pure: unit-tested.
import type { Completion } from '@codemirror/autocomplete';
import type { LanguageWords } from './vocabulary.js';

const DOC_FIELDS_EXTRA = ['id'];

/** Names under every `extract:` block of the text (a rule's later templates may use them). */
export function extractedNames(text: string): string[] {
  const out = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = /^(\s*)(?:-\s+)?extract:\s*$/.exec(lines[i]);
    if (!head) continue;
    let childIndent = -1;
    for (let j = i + 1; j < lines.length; j++) {
      const m = /^(\s*)([A-Za-z_][\w-]*)\s*:/.exec(lines[j]);
      if (lines[j].trim() === '' || lines[j].trimStart().startsWith('#')) continue;
      const indent = lines[j].length - lines[j].trimStart().length;
      if (indent <= head[1].length) break;
      if (childIndent === -1) childIndent = indent;
      if (m && indent === childIndent) out.add(m[2]);
    }
  }
  return [...out];
}

/** Top-level keys of the vars the rules see (from the `_vars.yml` texts the page knows, if any). */
export interface TemplateNames {
  words: LanguageWords;
  customFields: string[];
  vars: string[];
}

/** Liquid names a plain identifier may be; any other custom field name is written `custom_fields["Fällig am"]`. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `doc.custom_fields.Betrag`, or `doc.custom_fields["Fällig am"]` for a name with spaces or letters Liquid does not
 * take in a dotted path. Inside a double-quoted YAML string the Liquid quotes are single, so the YAML stays whole.
 */
export function customFieldPath(name: string, yamlQuote: '"' | "'" | null): string {
  if (PLAIN_NAME.test(name)) return `doc.custom_fields.${name}`;
  const q = yamlQuote === '"' ? "'" : '"';
  return `doc.custom_fields[${q}${name.replaceAll(q, q === '"' ? '\\"' : "\\'")}${q}]`;
}

/** The YAML quote the template sits in on this line (`set_title: "Re {{`), or null for a plain or block scalar. */
function yamlQuoteBefore(line: string): '"' | "'" | null {
  const value = /^\s*(?:-\s+)*[^:#]*:\s+(["'])/.exec(line) ?? /^\s*-\s+(["'])/.exec(line);
  return value ? (value[1] as '"' | "'") : null;
}

/** Options for a cursor inside an open `{{` on this line, or null when it is not in one. */
export function templateOptions(
  text: string,
  before: string,
  names: TemplateNames,
): { back: number; options: Completion[] } | null {
  const open = before.lastIndexOf('{{');
  if (open === -1 || before.lastIndexOf('}}') > open) return null;
  const inside = before.slice(open + 2);
  // Unicode letters too: a custom field named "Fällig" is typed as it is spelled.
  const word = /[\p{L}\p{N}_.]*$/u.exec(inside)?.[0] ?? '';
  const quote = yamlQuoteBefore(before);
  // `doc.custom_fields["Fällig am"].` : the members of a money value, after a bracketed name.
  const bracketed = /doc\.custom_fields\[(["'])(?:(?!\1).)*\1\]\.\w*$/.exec(inside)?.[0];
  if (bracketed) {
    const owner = bracketed.slice(0, bracketed.lastIndexOf('.'));
    const members = ['amount', 'currency'].map((m): Completion => ({
      label: `${owner}.${m}`,
      type: 'property',
      detail: 'money',
    }));
    return { back: bracketed.length, options: members };
  }
  if (/\|\s*[\w]*$/.test(inside)) {
    return {
      back: word.length,
      options: names.words.template_filters.map((f) => ({ label: f, type: 'function', detail: 'filter' })),
    };
  }
  // `doc.custom_fields.Betrag.` or `total.`: the members of a money value.
  const owner = /^(doc\.custom_fields\.[^.]+|[A-Za-z_]\w*)\.\w*$/.exec(word)?.[1];
  if (owner && (owner.startsWith('doc.custom_fields.') || extractedNames(text).includes(owner))) {
    const members = ['amount', 'currency'].map((m): Completion => ({
      label: `${owner}.${m}`,
      type: 'property',
      detail: 'money',
    }));
    return { back: word.length, options: members };
  }
  if (word.startsWith('doc.custom_fields.')) {
    // The label is the name as a person reads it (and filters by); the text inserted is valid Liquid.
    return {
      back: word.length,
      options: names.customFields.map((n) => ({
        label: `doc.custom_fields.${n}`,
        type: 'property',
        apply: customFieldPath(n, quote),
      })),
    };
  }
  if (word.startsWith('doc.')) {
    // The editor filters this list while the word still fits it, so a custom field here inserts as it does above.
    const fields = [...names.words.fields, ...DOC_FIELDS_EXTRA].map((f): Completion => {
      const custom = f.startsWith('custom_fields.') ? f.slice('custom_fields.'.length) : null;
      return { label: `doc.${f}`, type: 'property', ...(custom ? { apply: customFieldPath(custom, quote) } : {}) };
    });
    return { back: word.length, options: [...fields, { label: 'doc.custom_fields.', type: 'property' }] };
  }
  if (word.startsWith('vars.'))
    return { back: word.length, options: names.vars.map((n) => ({ label: `vars.${n}`, type: 'variable' })) };
  const extracted = extractedNames(text).map((n): Completion => ({ label: n, type: 'variable', detail: 'extracted' }));
  const context = names.words.template_context.map((n): Completion => ({
    label: n,
    type: 'namespace',
    apply: n === 'doc' || n === 'vars' ? `${n}.` : n,
  }));
  return { back: word.length, options: [...extracted, ...context] };
}
