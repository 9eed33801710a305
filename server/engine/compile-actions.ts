/** Compiles a rule's actions: exactly one action key each, modifiers where they make sense, templates parsed. */
import type { Action, ActionName } from './model.js';
import { ACTION_MODIFIERS, ACTIONS } from './rule-schema.js';
import { RuleCompileError, TemplateError, type RulePath } from './rule-errors.js';
import { compileTemplate, type CompiledTemplate } from './templates.js';
import { checkTemplateVariables, type KnownValues } from './template-variables.js';
import { PERMISSION_KINDS, PERMISSION_TARGETS } from './permissions.js';
import { compileNotify, type NotifyPayload } from './notify-action.js';
import type { PermissionKind, PermissionTarget } from './model.js';
import { compileCondition, type CompiledCondition } from './conditions.js';

export interface CustomFieldAssignment {
  field: string;
  /** A template, or a non-text scalar written as it is. */
  template: CompiledTemplate | null;
  literal: string | number | boolean | null;
  /** `{{ name }}` and nothing else: the extracted value passes through with its type. */
  passThrough: string | null;
}

export type ActionPayload =
  | { kind: 'text'; template: CompiledTemplate }
  | { kind: 'names'; templates: CompiledTemplate[] }
  | { kind: 'name'; template: CompiledTemplate | null }
  | { kind: 'custom'; fields: CustomFieldAssignment[] }
  | { kind: 'fields'; fields: string[] }
  | { kind: 'asn'; template: CompiledTemplate | null; number: number | null }
  | NotifyPayload
  | { kind: 'permissions'; all: boolean; lists: CompiledPermissionList[] }
  | { kind: 'trash' };

/** One list of a permission action, e.g. view → groups → [Family]. */
export interface CompiledPermissionList {
  kind: PermissionKind;
  target: PermissionTarget;
  templates: CompiledTemplate[];
}

export interface CompiledAction {
  name: ActionName;
  path: RulePath;
  ifEmpty: boolean;
  createMissing: boolean;
  ifChanged: boolean;
  /** `if:` — the action runs only when this holds. */
  condition: CompiledCondition | null;
  /** The Paperless path template for a storage path this action creates; passed on as it is. */
  storagePathTemplate: string | null;
  payload: ActionPayload;
}

const CREATE_MISSING_ACTIONS: ActionName[] = [
  'add_tags',
  'set_tags',
  'set_correspondent',
  'set_document_type',
  'set_storage_path',
];
const PASS_THROUGH = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

function template(source: unknown, path: RulePath, what: string, extractNames: KnownValues): CompiledTemplate {
  if (typeof source !== 'string') throw new RuleCompileError(path, `${what} must be text (a template is allowed)`);
  try {
    const compiled = compileTemplate(source, path);
    checkTemplateVariables(compiled, extractNames, path);
    return compiled;
  } catch (err) {
    if (err instanceof TemplateError) throw new RuleCompileError(err.path, err.message);
    throw err;
  }
}

function nameList(body: unknown, path: RulePath, action: string, extractNames: KnownValues): CompiledTemplate[] {
  const list = Array.isArray(body) ? body : [body];
  return list.map((n, i) =>
    template(n, Array.isArray(body) ? [...path, i] : path, `each name in ${action}`, extractNames),
  );
}

export function compileAction(action: Action, path: RulePath, extractNames: KnownValues): CompiledAction {
  if (typeof action !== 'object' || action === null || Array.isArray(action))
    throw new RuleCompileError(
      path,
      `an action is a mapping such as { set_title: "…" }; actions are ${ACTIONS.join(', ')}`,
    );
  const keys = Object.keys(action);
  const unknown = keys.filter(
    (k) => !(ACTIONS as readonly string[]).includes(k) && !(ACTION_MODIFIERS as readonly string[]).includes(k),
  );
  if (unknown.length)
    throw new RuleCompileError(
      [...path, unknown[0]],
      `unknown action "${unknown[0]}"; actions are ${ACTIONS.join(', ')}`,
    );
  const names = keys.filter((k): k is ActionName => (ACTIONS as readonly string[]).includes(k));
  if (names.length !== 1) {
    throw new RuleCompileError(
      path,
      names.length === 0
        ? `this action has only modifiers; add one of ${ACTIONS.join(', ')}`
        : `one action per list item, found ${names.join(' and ')}; write each as its own "- ${names[0]}: …" item`,
    );
  }
  const name = names[0];
  const at = [...path, name];
  if (action.if_empty !== undefined && name !== 'set_custom_fields')
    throw new RuleCompileError([...path, 'if_empty'], 'if_empty works only with set_custom_fields');
  if (action.create_missing !== undefined && !CREATE_MISSING_ACTIONS.includes(name)) {
    throw new RuleCompileError(
      [...path, 'create_missing'],
      `create_missing works only with ${CREATE_MISSING_ACTIONS.join(', ')}`,
    );
  }
  if (action.path !== undefined && (name !== 'set_storage_path' || action.create_missing !== true)) {
    throw new RuleCompileError(
      [...path, 'path'],
      'path (the template of a storage path to create) works only with set_storage_path and create_missing: true',
    );
  }
  const body: unknown = action[name];
  let payload: ActionPayload;
  switch (name) {
    case 'set_title':
    case 'set_created':
    case 'add_note':
      payload = { kind: 'text', template: template(body, at, name, extractNames) };
      break;
    case 'add_tags':
    case 'remove_tags':
    case 'set_tags':
      payload = { kind: 'names', templates: nameList(body, at, name, extractNames) };
      break;
    case 'set_correspondent':
    case 'set_document_type':
    case 'set_storage_path':
    case 'set_owner':
      payload = { kind: 'name', template: body === null ? null : template(body, at, name, extractNames) };
      break;
    case 'set_archive_serial_number':
      if (body === null || typeof body === 'number') {
        if (typeof body === 'number' && (!Number.isInteger(body) || body < 0))
          throw new RuleCompileError(at, 'an archive serial number is a whole number ≥ 0');
        payload = { kind: 'asn', template: null, number: body };
      } else payload = { kind: 'asn', template: template(body, at, name, extractNames), number: null };
      break;
    case 'add_custom_fields':
    case 'remove_custom_fields': {
      const list = Array.isArray(body) ? body : [body];
      if (list.length === 0 || list.some((n) => typeof n !== 'string' || n.trim() === '')) {
        throw new RuleCompileError(at, `${name} takes a custom field name or a list of them, e.g. [Rechnungsnummer]`);
      }
      payload = { kind: 'fields', fields: [...new Set((list as string[]).map((n) => n.trim()))] };
      break;
    }
    case 'notify':
      payload = compileNotify(body, at, (source, where, what) => template(source, where, what, extractNames));
      break;
    case 'set_permissions':
    case 'add_permissions':
    case 'remove_permissions':
      payload = permissionPayload(body, at, name, extractNames);
      break;
    case 'move_to_trash':
      if (body !== true) throw new RuleCompileError(at, 'move_to_trash takes true: "- move_to_trash: true"');
      payload = { kind: 'trash' };
      break;
    case 'set_custom_fields': {
      if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length === 0) {
        throw new RuleCompileError(
          at,
          'set_custom_fields takes a mapping of field name → value, e.g. { Amount: "{{ total }}" }',
        );
      }
      const fields = Object.entries(body as Record<string, unknown>).map(([field, v]): CustomFieldAssignment => {
        if (typeof v === 'string') {
          const m = PASS_THROUGH.exec(v.trim());
          const passThrough = m && extractNames.has(m[1]) ? m[1] : null;
          return {
            field,
            template: template(v, [...at, field], `custom field "${field}"`, extractNames),
            literal: null,
            passThrough,
          };
        }
        if (v === null || typeof v === 'number' || typeof v === 'boolean')
          return { field, template: null, literal: v, passThrough: null };
        throw new RuleCompileError([...at, field], `custom field "${field}" takes text, a number, true/false or null`);
      });
      payload = { kind: 'custom', fields };
      break;
    }
  }
  return {
    name,
    path,
    ifEmpty: action.if_empty === true,
    createMissing: action.create_missing === true,
    ifChanged: action.if_changed === true,
    condition: action.if === undefined ? null : compileCondition(action.if, [...path, 'if'], extractNames),
    storagePathTemplate: action.path ?? null,
    payload,
  };
}

function permissionPayload(body: unknown, at: RulePath, action: string, extractNames: KnownValues): ActionPayload {
  const shape = `${action} takes { view: { users: [...], groups: [...] }, change: { users: [...], groups: [...] } } (any part may be left out)`;
  if (body === 'all' && action === 'remove_permissions') return { kind: 'permissions', all: true, lists: [] };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RuleCompileError(at, shape);
  const lists: CompiledPermissionList[] = [];
  for (const [kind, targets] of Object.entries(body as Record<string, unknown>)) {
    if (
      !(PERMISSION_KINDS as readonly string[]).includes(kind) ||
      typeof targets !== 'object' ||
      targets === null ||
      Array.isArray(targets)
    ) {
      throw new RuleCompileError([...at, kind], shape);
    }
    for (const [target, names] of Object.entries(targets as Record<string, unknown>)) {
      if (!(PERMISSION_TARGETS as readonly string[]).includes(target))
        throw new RuleCompileError([...at, kind, target], shape);
      // An empty list is meaningful for set_permissions (nobody); the others need a name.
      if (Array.isArray(names) && names.length === 0 && action !== 'set_permissions')
        throw new RuleCompileError([...at, kind, target], `${action} needs at least one name here`);
      lists.push({
        kind: kind as PermissionKind,
        target: target as PermissionTarget,
        templates: nameList(names, [...at, kind, target], action, extractNames),
      });
    }
  }
  if (lists.length === 0) throw new RuleCompileError(at, shape);
  return { kind: 'permissions', all: false, lists };
}
