/**
 * Applies one compiled action to the in-memory document copy. Returns `planned` when something
 * changed and `unchanged` when the value already holds, so a second run writes nothing.
 */
import type { CustomFieldDataType } from '../dms/types.js';
import type { CreateMissing, CustomFieldValue, RuleDocument } from './model.js';
import type { CompiledAction } from './compile-actions.js';
import type { ExtractedValue, TypedValue } from './extraction.js';
import { ConversionError, type RulePath } from './errors.js';
import { renderTemplate, type CompiledTemplate } from './templates.js';
import { parseDate } from './parse-date.js';
import { parseInteger } from './parse-number.js';
import { isEmptyValue } from './condition-ops.js';
import { sameCustomValue, toCustomFieldValue } from './custom-field-values.js';
import { describeValue } from './describe.js';

/** The dms keeps at most this many characters of a title. */
export const MAX_TITLE_LENGTH = 128;

export interface ActionEnv {
  /** Template scope, built fresh so each action sees the changes of the ones before it. */
  scope(): Record<string, unknown>;
  extracted: Record<string, ExtractedValue>;
  customFieldTypes: Record<string, CustomFieldDataType>;
  createMissing: CreateMissing;
  /** Whether the document differs from the one the run started with (for `if_changed`). */
  changedSoFar(): boolean;
}

export interface ActionOutcome {
  status: 'planned' | 'unchanged' | 'skipped';
  detail: string;
  /** Fields this action set, with the value it wanted (for conflict detection): `title`, `custom_fields.X`, `tags`. */
  writes: Array<{ field: string; value: unknown }>;
}

const sameName = (a: string | null, b: string | null): boolean => (a ?? '').toLocaleLowerCase() === (b ?? '').toLocaleLowerCase() && (a === null) === (b === null);

function render(t: CompiledTemplate, env: ActionEnv, path: RulePath): string {
  return renderTemplate(t, env.scope(), path);
}

function renderNames(templates: CompiledTemplate[], env: ActionEnv, path: RulePath): string[] {
  const out: string[] = [];
  for (const [i, t] of templates.entries()) {
    // Empty names are dropped so `{{ vars.tag | default: '' }}` can opt out.
    const name = render(t, env, [...path, i]).trim();
    if (name && !out.some((n) => sameName(n, name))) out.push(name);
  }
  return out;
}

function addCreate(env: ActionEnv, key: 'tags' | 'correspondents' | 'document_types' | 'storage_paths', names: string[]): void {
  const list = (env.createMissing[key] ??= []);
  for (const n of names) if (!list.some((x) => sameName(x, n))) list.push(n);
}

function outcome(changed: boolean, field: string, from: unknown, to: unknown, writes: ActionOutcome['writes']): ActionOutcome {
  return changed
    ? { status: 'planned', detail: `${field}: ${describeValue(from)} → ${describeValue(to)}`, writes }
    : { status: 'unchanged', detail: `${field} is already ${describeValue(to)}`, writes };
}

export function applyAction(a: CompiledAction, doc: RuleDocument, env: ActionEnv): ActionOutcome {
  if (a.ifChanged && !env.changedSoFar()) return { status: 'skipped', detail: 'if_changed: the rules changed nothing on this document before this action', writes: [] };
  const at = [...a.path, a.name];
  const p = a.payload;
  switch (a.name) {
    case 'set_title': {
      if (p.kind !== 'text') break;
      const title = render(p.template, env, at).replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH);
      if (!title) throw new ConversionError('set_title rendered an empty title');
      const from = doc.title;
      doc.title = title;
      return outcome(from !== title, 'title', from, title, [{ field: 'title', value: title }]);
    }
    case 'add_tags':
    case 'remove_tags':
    case 'set_tags': {
      if (p.kind !== 'names') break;
      const names = renderNames(p.templates, env, at);
      const from = [...doc.tags];
      const has = (n: string): boolean => doc.tags.some((t) => sameName(t, n));
      if (a.name === 'add_tags') doc.tags.push(...names.filter((n) => !has(n)));
      else if (a.name === 'remove_tags') doc.tags = doc.tags.filter((t) => !names.some((n) => sameName(t, n)));
      else doc.tags = names.map((n) => doc.tags.find((t) => sameName(t, n)) ?? n);
      if (a.createMissing) addCreate(env, 'tags', names);
      const changed = from.length !== doc.tags.length || from.some((t) => !doc.tags.some((x) => sameName(x, t)));
      const sign = a.name === 'remove_tags' ? '-' : '+';
      const writes = a.name === 'set_tags' ? [{ field: 'tags', value: [...doc.tags] }] : names.map((n) => ({ field: `tags.${n.toLocaleLowerCase()}`, value: sign }));
      return outcome(changed, 'tags', from, doc.tags, writes);
    }
    case 'set_correspondent':
    case 'set_document_type':
    case 'set_storage_path': {
      if (p.kind !== 'name') break;
      const field = a.name.slice(4) as 'correspondent' | 'document_type' | 'storage_path';
      const rendered = p.template ? render(p.template, env, at).trim() : '';
      const to = rendered === '' ? null : rendered;
      const from = doc[field];
      const changed = !sameName(from, to);
      if (changed) doc[field] = to;
      if (a.createMissing && to) {
        addCreate(env, field === 'correspondent' ? 'correspondents' : field === 'document_type' ? 'document_types' : 'storage_paths', [to]);
        if (a.storagePathTemplate) (env.createMissing.storage_path_templates ??= {})[to.toLocaleLowerCase()] = a.storagePathTemplate;
      }
      return outcome(changed, field, from, doc[field], [{ field, value: doc[field] }]);
    }
    case 'set_created': {
      if (p.kind !== 'text') break;
      const rendered = render(p.template, env, at).trim();
      const iso = parseDate(rendered.slice(0, 10)) ?? parseDate(rendered);
      if (!iso) throw new ConversionError(`set_created rendered ${JSON.stringify(rendered)}, which is not a date`);
      const from = doc.created;
      const changed = (from ?? '').slice(0, 10) !== iso;
      if (changed) doc.created = iso;
      return outcome(changed, 'created', from, iso, [{ field: 'created', value: iso }]);
    }
    case 'set_archive_serial_number': {
      if (p.kind !== 'asn') break;
      let to = p.number;
      if (p.template) {
        const rendered = render(p.template, env, at).trim();
        to = rendered === '' ? null : parseInteger(rendered);
        if (rendered !== '' && (to === null || to < 0)) throw new ConversionError(`set_archive_serial_number rendered ${JSON.stringify(rendered)}, which is not a whole number ≥ 0`);
      }
      const from = doc.archive_serial_number;
      doc.archive_serial_number = to;
      return outcome(from !== to, 'archive_serial_number', from, to, [{ field: 'archive_serial_number', value: to }]);
    }
    case 'add_note': {
      if (p.kind !== 'text') break;
      const note = render(p.template, env, at).trim();
      if (!note) return { status: 'unchanged', detail: 'the note rendered empty; nothing to add', writes: [] };
      // Notes do not make a write idempotent, so an identical note means "already done".
      if (doc.notes.some((n) => n.trim() === note)) return { status: 'unchanged', detail: `an identical note exists: ${describeValue(note)}`, writes: [] };
      doc.notes.push(note);
      return { status: 'planned', detail: `adds note ${describeValue(note)}`, writes: [] };
    }
    case 'set_custom_fields': {
      if (p.kind !== 'custom') break;
      const parts: string[] = [];
      const writes: ActionOutcome['writes'] = [];
      let changed = false;
      for (const f of p.fields) {
        const current = Object.prototype.hasOwnProperty.call(doc.custom_fields, f.field) ? doc.custom_fields[f.field] : undefined;
        if (a.ifEmpty && !isEmptyValue(current)) {
          parts.push(`${f.field} kept (if_empty: it has ${describeValue(current)})`);
          continue;
        }
        const raw: TypedValue = f.passThrough ? passThroughValue(env.extracted[f.passThrough]) : f.template ? render(f.template, env, [...at, f.field]) : f.literal;
        const to: CustomFieldValue = toCustomFieldValue(f.field, raw, env.customFieldTypes[f.field]);
        writes.push({ field: `custom_fields.${f.field}`, value: to });
        // Clearing a field the document does not have changes nothing (no phantom `null → null`).
        if (to === null && current === undefined) {
          parts.push(`${f.field} is not attached; nothing to clear`);
          continue;
        }
        if (current !== undefined && sameCustomValue(current, to)) {
          parts.push(`${f.field} is already ${describeValue(current)}`);
          continue;
        }
        changed = true;
        doc.custom_fields[f.field] = to;
        parts.push(`${f.field}: ${describeValue(current)} → ${describeValue(to)}`);
      }
      return { status: changed ? 'planned' : 'unchanged', detail: parts.join('; '), writes };
    }
  }
  throw new Error(`internal: action ${a.name} has a mismatched payload`);
}

function passThroughValue(v: ExtractedValue | undefined): TypedValue {
  if (v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' && x ? x.amount : x)).join(', ');
  return v;
}
