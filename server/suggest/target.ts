import { BadRequestError } from '../app-errors.js';
import type { RuleDocument } from '../engine/engine.js';

/** What a suggested rule sets: a tag, a correspondent, a type, a storage path, or a custom field's value. */
export type SuggestTarget =
  | { kind: 'tag' | 'correspondent' | 'document_type' | 'storage_path'; name: string }
  | { kind: 'custom_field'; name: string; value: string | number | boolean };

export interface SuggestRequest {
  target: SuggestTarget;
  /** Documents that should match, counted as labelled (for a label nobody has used yet). */
  examples: number[];
  minPrecision: number;
}

const NAMED = ['tag', 'correspondent', 'document_type', 'storage_path'] as const;

/** `{"target": {"tag": "Rechnung"}, "examples": [1, 2], "min_precision": 0.95}` → a request, or a 400 that says why. */
export function parseSuggestRequest(body: unknown): SuggestRequest {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const raw = input.target as Record<string, unknown> | undefined;
  if (typeof raw !== 'object' || raw === null)
    throw new BadRequestError(
      'Give a target: {"target": {"tag": NAME}} (or correspondent, document_type, storage_path, or custom_field with name and value).',
    );
  const keys = Object.keys(raw);
  let target: SuggestTarget | null = null;
  for (const kind of NAMED) {
    const name = raw[kind];
    if (typeof name === 'string' && name.trim() && keys.length === 1) target = { kind, name: name.trim() };
  }
  const field = raw.custom_field as Record<string, unknown> | undefined;
  if (keys.length === 1 && typeof field === 'object' && field !== null) {
    const value = field.value;
    if (typeof field.name !== 'string' || !field.name.trim() || !['string', 'number', 'boolean'].includes(typeof value))
      throw new BadRequestError('A custom field target needs {"custom_field": {"name": FIELD, "value": VALUE}}.');
    target = { kind: 'custom_field', name: field.name.trim(), value: value as string | number | boolean };
  }
  if (!target)
    throw new BadRequestError(
      'The target must name exactly one of tag, correspondent, document_type, storage_path (a name) or custom_field ({name, value}).',
    );
  const examples = input.examples ?? [];
  if (!Array.isArray(examples) || !examples.every((id) => Number.isSafeInteger(id) && (id as number) > 0))
    throw new BadRequestError('"examples" must be a list of document ids.');
  const minPrecision = input.min_precision ?? 0.95;
  if (typeof minPrecision !== 'number' || !(minPrecision > 0 && minPrecision <= 1))
    throw new BadRequestError('"min_precision" must be a number above 0 and at most 1, e.g. 0.95.');
  return { target, examples: [...new Set(examples as number[])].sort((a, b) => a - b), minPrecision };
}

const same = (a: string | null | undefined, b: string) => (a ?? '').toLowerCase() === b.toLowerCase();

/** Whether a document (as rules see it) carries the target. */
export function hasTarget(doc: RuleDocument, target: SuggestTarget): boolean {
  switch (target.kind) {
    case 'tag':
      return doc.tags.some((t) => same(t, target.name));
    case 'correspondent':
      return same(doc.correspondent, target.name);
    case 'document_type':
      return same(doc.document_type, target.name);
    case 'storage_path':
      return same(doc.storage_path, target.name);
    case 'custom_field': {
      const value = doc.custom_fields[target.name];
      if (value === undefined || value === null) return false;
      const shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
      return same(shown, String(target.value));
    }
  }
}

/** The action that sets the target, as a rule file writes it. */
export function targetAction(target: SuggestTarget): Record<string, unknown> {
  switch (target.kind) {
    case 'tag':
      return { add_tags: [target.name] };
    case 'correspondent':
      return { set_correspondent: target.name };
    case 'document_type':
      return { set_document_type: target.name };
    case 'storage_path':
      return { set_storage_path: target.name };
    case 'custom_field':
      return { set_custom_fields: { [target.name]: target.value } };
  }
}

/** "tag Rechnung", "custom field Status = open". */
export function describeTarget(target: SuggestTarget): string {
  if (target.kind === 'custom_field') return `custom field ${target.name} = ${String(target.value)}`;
  return `${target.kind.replace('_', ' ')} ${target.name}`;
}

/** A rule id from the target: `suggested-tag-rechnung`. */
export function ruleIdFor(target: SuggestTarget, variant: string): string {
  const slug = describeTarget(target)
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 70);
  return `suggested-${slug || 'rule'}-${variant}`;
}
