/**
 * Applies one compiled action to the in-memory document copy. Returns `planned` when something
 * changed and `unchanged` when the value already holds, so a second run writes nothing.
 */
import type { CustomFieldDataType } from '../dms/types.js';
import type { CreateMissing, CustomFieldValue, RuleDocument, TagHierarchy } from './model.js';
import type { CompiledAction } from './compile-actions.js';
import type { ExtractedValue, TypedValue } from './extraction.js';
import { ConversionError, stoppedAtMissing, type RulePath } from './rule-errors.js';
import { renderTemplate, type CompiledTemplate } from './templates.js';
import { parseDate } from './parse-date.js';
import { parseInteger } from './parse-number.js';
import { isEmptyValue } from './condition-ops.js';
import { sameCustomValue, toCustomFieldValue } from './custom-field-values.js';
import { describeValue } from './describe.js';
import { applyPermissionAction, permissionChanges } from './permissions.js';
import { describeNotify, renderNotify, type PlannedNotification } from './notify-action.js';

/** The dms keeps at most this many characters (code points) of a title. */
export const MAX_TITLE_LENGTH = 128;

export interface ActionEnv {
  /** Template scope, built fresh so each action sees the changes of the ones before it. */
  scope(): Record<string, unknown>;
  extracted: Record<string, ExtractedValue>;
  customFieldTypes: Record<string, CustomFieldDataType>;
  createMissing: CreateMissing;
  /** The dms's tag tree; without it (rule tests) tags are flat. */
  tagHierarchy?: TagHierarchy;
  /** Messages `notify` actions want sent; the run layer decides whether they go out. */
  notifications: PlannedNotification[];
  /** Whether the document differs from the one the run started with (for `if_changed`). */
  changedSoFar(): boolean;
  /** Optional extracted values that found nothing: a value built from one leaves its field as it is. */
  missing?: ReadonlySet<string>;
}

export type { PlannedNotification };

export interface ActionOutcome {
  status: 'planned' | 'unchanged' | 'skipped';
  detail: string;
  /** Fields this action set, with the value it wanted (for conflict detection): `title`, `custom_fields.X`, `tags`. */
  writes: Array<{ field: string; value: unknown }>;
}

const sameName = (a: string | null, b: string | null): boolean =>
  (a ?? '').toLocaleLowerCase() === (b ?? '').toLocaleLowerCase() && (a === null) === (b === null);

function render(t: CompiledTemplate, env: ActionEnv, path: RulePath): string {
  return renderTemplate(t, env.scope(), path);
}

/** The missing optional values a template reads; empty when it needs none of them. */
function missingIn(t: CompiledTemplate, env: ActionEnv): string[] {
  return env.missing ? t.globals.filter((n) => env.missing?.has(n)) : [];
}

/**
 * Renders a value, or says which optional extracted values it needed and did not get: a field is then left
 * as a person typed it, never cleared. A template that guards them (`| default:`, `{% if %}`) still renders.
 */
function renderOrMissing(
  t: CompiledTemplate,
  env: ActionEnv,
  path: RulePath,
): { text: string } | { missing: string[] } {
  const missing = missingIn(t, env);
  if (missing.length === 0) return { text: render(t, env, path) };
  try {
    return { text: render(t, env, path) };
  } catch (err) {
    if (stoppedAtMissing(err, missing)) return { missing };
    throw err;
  }
}

function kept(field: string, missing: string[]): ActionOutcome {
  return {
    status: 'skipped',
    detail: `${field} kept: ${missing.join(', ')} found no value (optional extraction)`,
    writes: [],
  };
}

function renderNames(templates: CompiledTemplate[], env: ActionEnv, path: RulePath): string[] {
  const out: string[] = [];
  for (const [i, t] of templates.entries()) {
    // Empty names are dropped so `{{ vars.tag | default: '' }}` can opt out; so are names built from a value not found.
    const rendered = renderOrMissing(t, env, [...path, i]);
    const name = 'text' in rendered ? rendered.text.trim() : '';
    if (name && !out.some((n) => sameName(n, name))) out.push(name);
  }
  return out;
}

function addCreate(
  env: ActionEnv,
  key: 'tags' | 'correspondents' | 'document_types' | 'storage_paths',
  names: string[],
): void {
  const list = (env.createMissing[key] ??= []);
  for (const n of names) if (!list.some((x) => sameName(x, n))) list.push(n);
}

function outcome(
  changed: boolean,
  field: string,
  from: unknown,
  to: unknown,
  writes: ActionOutcome['writes'],
): ActionOutcome {
  return changed
    ? { status: 'planned', detail: `${field}: ${describeValue(from)} → ${describeValue(to)}`, writes }
    : { status: 'unchanged', detail: `${field} is already ${describeValue(to)}`, writes };
}

export function applyAction(a: CompiledAction, doc: RuleDocument, env: ActionEnv): ActionOutcome {
  if (a.ifChanged && !env.changedSoFar())
    return {
      status: 'skipped',
      detail: 'if_changed: the rules changed nothing on this document before this action',
      writes: [],
    };
  const at = [...a.path, a.name];
  const p = a.payload;
  switch (a.name) {
    case 'set_title': {
      if (p.kind !== 'text') break;
      const out = renderOrMissing(p.template, env, at);
      if ('missing' in out) return kept('title', out.missing);
      const rendered = out.text.replace(/\s+/g, ' ').trim();
      // Paperless counts code points (Python str): cutting UTF-16 units could split an emoji's surrogate pair.
      const codePoints = Array.from(rendered);
      const title =
        codePoints.length > MAX_TITLE_LENGTH ? codePoints.slice(0, MAX_TITLE_LENGTH).join('').trimEnd() : rendered;
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
      const { tags, byHierarchy } = tagsAfterAction(a.name, doc.tags, names, env.tagHierarchy);
      doc.tags = tags;
      if (a.createMissing) addCreate(env, 'tags', names);
      const changed = from.length !== doc.tags.length || from.some((t) => !doc.tags.some((x) => sameName(x, t)));
      const sign = a.name === 'remove_tags' ? '-' : '+';
      const writes =
        a.name === 'set_tags'
          ? [{ field: 'tags', value: [...doc.tags] }]
          : names.map((n) => ({ field: `tags.${n.toLocaleLowerCase()}`, value: sign }));
      const result = outcome(changed, 'tags', from, doc.tags, writes);
      if (changed && byHierarchy.length > 0) {
        result.detail += `; the dms also ${a.name === 'remove_tags' ? 'removes the tags below' : 'adds the parent tags'}: ${byHierarchy.join(', ')}`;
      }
      return result;
    }
    case 'set_correspondent':
    case 'set_document_type':
    case 'set_storage_path':
    case 'set_owner': {
      if (p.kind !== 'name') break;
      const field = a.name.slice(4) as 'correspondent' | 'document_type' | 'storage_path' | 'owner';
      const out = p.template ? renderOrMissing(p.template, env, at) : { text: '' };
      if ('missing' in out) return kept(field, out.missing);
      const rendered = out.text.trim();
      const to = rendered === '' ? null : rendered;
      const from = doc[field];
      const changed = !sameName(from, to);
      if (changed) doc[field] = to;
      if (a.createMissing && to && field !== 'owner') {
        addCreate(
          env,
          field === 'correspondent' ? 'correspondents' : field === 'document_type' ? 'document_types' : 'storage_paths',
          [to],
        );
        if (a.storagePathTemplate)
          (env.createMissing.storage_path_templates ??= {})[to.toLocaleLowerCase()] = a.storagePathTemplate;
      }
      return outcome(changed, field, from, doc[field], [{ field, value: doc[field] }]);
    }
    case 'set_created': {
      if (p.kind !== 'text') break;
      const out = renderOrMissing(p.template, env, at);
      if ('missing' in out) return kept('created', out.missing);
      const rendered = out.text.trim();
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
        const out = renderOrMissing(p.template, env, at);
        if ('missing' in out) return kept('archive_serial_number', out.missing);
        const rendered = out.text.trim();
        to = rendered === '' ? null : parseInteger(rendered);
        if (rendered !== '' && (to === null || to < 0))
          throw new ConversionError(
            `set_archive_serial_number rendered ${JSON.stringify(rendered)}, which is not a whole number ≥ 0`,
          );
      }
      const from = doc.archive_serial_number;
      doc.archive_serial_number = to;
      return outcome(from !== to, 'archive_serial_number', from, to, [{ field: 'archive_serial_number', value: to }]);
    }
    case 'add_note': {
      if (p.kind !== 'text') break;
      const out = renderOrMissing(p.template, env, at);
      if ('missing' in out) return kept('the note', out.missing);
      const note = out.text.trim();
      if (!note) return { status: 'unchanged', detail: 'the note rendered empty; nothing to add', writes: [] };
      // Notes do not make a write idempotent, so an identical note means "already done".
      if (doc.notes.some((n) => n.trim() === note))
        return { status: 'unchanged', detail: `an identical note exists: ${describeValue(note)}`, writes: [] };
      doc.notes.push(note);
      return { status: 'planned', detail: `adds note ${describeValue(note)}`, writes: [] };
    }
    case 'notify': {
      if (p.kind !== 'notify') break;
      const planned = renderNotify(p, a.path, (t, where) => render(t, env, where));
      if (!planned.message && planned.body === undefined)
        return { status: 'unchanged', detail: 'the message rendered empty; nothing to send', writes: [] };
      env.notifications.push(planned);
      return { status: 'planned', detail: describeNotify(planned, describeValue), writes: [] };
    }
    case 'set_permissions':
    case 'add_permissions':
    case 'remove_permissions': {
      if (p.kind !== 'permissions') break;
      // The run layer reads permissions whenever a rule has a permission action; this guards that promise.
      if (!doc.permissions) throw new ConversionError(`${a.name}: the document was read without its permissions`);
      const entries = p.lists.map((l) => ({
        kind: l.kind,
        target: l.target,
        names: renderNames(l.templates, env, [...at, l.kind, l.target]),
      }));
      const next = applyPermissionAction(doc.permissions, a.name, entries, p.all);
      const changes = Object.entries(permissionChanges(doc.permissions, next));
      doc.permissions = next;
      const writes = changes.map(([field, change]) => ({ field, value: change.to }));
      if (changes.length === 0)
        return { status: 'unchanged', detail: 'the permissions already are as the action wants', writes };
      return {
        status: 'planned',
        detail: changes.map(([field, c]) => `${field}: ${describeValue(c.from)} → ${describeValue(c.to)}`).join('; '),
        writes,
      };
    }
    case 'set_custom_fields': {
      if (p.kind !== 'custom') break;
      const parts: string[] = [];
      const writes: ActionOutcome['writes'] = [];
      let changed = false;
      for (const f of p.fields) {
        const current = Object.prototype.hasOwnProperty.call(doc.custom_fields, f.field)
          ? doc.custom_fields[f.field]
          : undefined;
        if (a.ifEmpty && !isEmptyValue(current)) {
          parts.push(`${f.field} kept (if_empty: it has ${describeValue(current)})`);
          continue;
        }
        const out = f.passThrough ? null : f.template ? renderOrMissing(f.template, env, [...at, f.field]) : null;
        const missing =
          f.passThrough && env.missing?.has(f.passThrough)
            ? [f.passThrough]
            : out && 'missing' in out
              ? out.missing
              : [];
        if (missing.length) {
          parts.push(`${f.field} kept: ${missing.join(', ')} found no value (optional extraction)`);
          continue;
        }
        const raw: TypedValue = f.passThrough
          ? passThroughValue(env.extracted[f.passThrough])
          : out && 'text' in out
            ? out.text
            : f.literal;
        const to: CustomFieldValue = toCustomFieldValue(f.field, raw, env.customFieldTypes[f.field]);
        writes.push({ field: `custom_fields.${f.field}`, value: to });
        // No value for a field that is not attached: nothing to clear (attaching an empty field is add_custom_fields).
        if (current === undefined && to === null) {
          parts.push(`${f.field} is not attached and stays so (empty value)`);
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
    case 'move_to_trash': {
      if (p.kind !== 'trash') break;
      if (doc.trashed)
        return { status: 'unchanged', detail: 'an earlier action already moves the document to the trash', writes: [] };
      doc.trashed = true;
      return {
        status: 'planned',
        detail:
          "moves the document to the dms's trash after the other changes (restorable there, or by undoing the job)",
        writes: [{ field: 'trash', value: true }],
      };
    }
    case 'add_custom_fields':
    case 'remove_custom_fields': {
      if (p.kind !== 'fields') break;
      const attach = a.name === 'add_custom_fields';
      const parts: string[] = [];
      let changed = false;
      for (const name of p.fields) {
        const attached = Object.prototype.hasOwnProperty.call(doc.custom_fields, name);
        if (attached === attach) {
          parts.push(`${name} is ${attach ? 'already attached' : 'not attached'}`);
          continue;
        }
        changed = true;
        parts.push(
          attach ? `attaches ${name} (no value)` : `detaches ${name} (was ${describeValue(doc.custom_fields[name])})`,
        );
        if (attach) doc.custom_fields[name] = null;
        else delete doc.custom_fields[name];
      }
      const writes = p.fields.map((name) => ({ field: `custom_fields.${name}`, value: attach ? null : '(detached)' }));
      return { status: changed ? 'planned' : 'unchanged', detail: parts.join('; '), writes };
    }
  }
  throw new Error(`internal: action ${a.name} has a mismatched payload`);
}

/** The tags after a tag action, with the ones the dms adds (ancestors) or removes (descendants) on its own. */
function tagsAfterAction(
  action: 'add_tags' | 'remove_tags' | 'set_tags',
  current: string[],
  names: string[],
  tree: TagHierarchy | undefined,
): { tags: string[]; byHierarchy: string[] } {
  const has = (list: string[], n: string) => list.some((t) => sameName(t, n));
  const expand = (list: string[], more: (n: string) => string[]) => {
    const out = [...list];
    for (const n of list) for (const m of tree ? more(n) : []) if (!has(out, m)) out.push(m);
    return out;
  };
  if (action === 'remove_tags') {
    const drop = expand(names, (n) => tree!.descendants(n));
    return {
      tags: current.filter((t) => !has(drop, t)),
      byHierarchy: drop.filter((t) => !has(names, t) && has(current, t)),
    };
  }
  const wanted = expand(names, (n) => tree!.ancestors(n));
  const byHierarchy = wanted.filter((t) => !has(names, t) && !has(current, t));
  if (action === 'add_tags') return { tags: [...current, ...wanted.filter((n) => !has(current, n))], byHierarchy };
  return { tags: wanted.map((n) => current.find((t) => sameName(t, n)) ?? n), byHierarchy };
}

function passThroughValue(v: ExtractedValue | undefined): TypedValue {
  if (v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' && x ? x.amount : x)).join(', ');
  return v;
}
