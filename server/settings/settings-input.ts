import { CONFIG_KEYS, ConfigError, type ConfigField } from '../config.js';
import { BadRequestError } from '../app-errors.js';

/** What `PUT /api/ui/settings` may change; values already validated. `null` clears a setting. */
export interface SettingsPatch {
  dms_url?: string | null;
  dms_token?: string | null;
  admin_user?: string;
  admin_password?: string;
  api_token?: string | null;
  webhook_dry_run?: boolean;
  /** Polling interval in minutes (0 = off); null = automatic (on without an API token). */
  poll_minutes?: number | null;
  /** Not a setting: the admin's current password, needed to change the password or the API token. */
  current_password?: string;
}

export type SettingName = Exclude<keyof SettingsPatch, 'current_password'>;
export const SETTING_NAMES: readonly SettingName[] = [
  'dms_url',
  'dms_token',
  'admin_user',
  'admin_password',
  'api_token',
  'webhook_dry_run',
  'poll_minutes',
];

// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The config.ts parser for a field, so the page accepts exactly what the environment would. */
function configParse(field: ConfigField, raw: string, name: string): unknown {
  const key = CONFIG_KEYS.find((k) => k.field === field);
  if (!key) throw new Error(`no config key for ${field}`);
  try {
    return key.parse(raw, name);
  } catch (err) {
    if (err instanceof ConfigError) throw new BadRequestError(err.message);
    throw err;
  }
}

function secretText(value: unknown, name: string, minLength: number): string | null {
  if (value === null || value === '') return null;
  if (typeof value !== 'string') throw new BadRequestError(`${name} must be a string, or null to remove it.`);
  if (/\s/.test(value) || CONTROL.test(value))
    throw new BadRequestError(`${name} must not contain spaces or control characters.`);
  if (value.length < minLength || value.length > 512) {
    throw new BadRequestError(`${name} must be ${minLength} to 512 characters long.`);
  }
  return value;
}

/** Checks a PUT body: known keys only, at least one, each value of the right kind. */
export function parseSettingsPatch(body: unknown): SettingsPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError(`Send a JSON object with any of: ${SETTING_NAMES.join(', ')}.`);
  }
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter(
    (k) => !(SETTING_NAMES as readonly string[]).includes(k) && k !== 'current_password',
  );
  if (unknown.length > 0)
    throw new BadRequestError(
      `Unknown setting ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${SETTING_NAMES.join(', ')}.`,
    );
  if (Object.keys(input).filter((k) => k !== 'current_password').length === 0)
    throw new BadRequestError(`Nothing to change: send any of ${SETTING_NAMES.join(', ')}.`);

  const patch: SettingsPatch = {};
  if ('current_password' in input) {
    if (typeof input.current_password !== 'string') throw new BadRequestError('current_password must be a string.');
    patch.current_password = input.current_password;
  }
  if ('dms_url' in input) {
    const v = input.dms_url;
    if (v !== null && typeof v !== 'string')
      throw new BadRequestError('dms_url must be a URL string, or null for the demo dms.');
    patch.dms_url = v === null || v.trim() === '' ? null : (configParse('dmsUrl', v.trim(), 'dms_url') as string);
  }
  if ('dms_token' in input) patch.dms_token = secretText(input.dms_token, 'dms_token', 1);
  if ('api_token' in input) patch.api_token = secretText(input.api_token, 'api_token', 16);
  if ('admin_user' in input) {
    const v = input.admin_user;
    if (typeof v !== 'string' || v.trim() === '' || v !== v.trim() || CONTROL.test(v) || v.length > 100) {
      throw new BadRequestError('admin_user must be a name of 1 to 100 characters without leading or trailing spaces.');
    }
    patch.admin_user = v;
  }
  if ('admin_password' in input) {
    const v = input.admin_password;
    if (typeof v !== 'string' || v.length < 8 || v.length > 1024) {
      throw new BadRequestError('admin_password must be 8 to 1024 characters long.');
    }
    patch.admin_password = v;
  }
  if ('webhook_dry_run' in input) {
    const v = input.webhook_dry_run;
    if (typeof v === 'boolean') patch.webhook_dry_run = v;
    else if (typeof v === 'string')
      patch.webhook_dry_run = configParse('webhookDryRun', v, 'webhook_dry_run') as boolean;
    else throw new BadRequestError('webhook_dry_run must be true or false.');
  }
  if ('poll_minutes' in input) {
    const v = input.poll_minutes;
    if (v === null || v === '') patch.poll_minutes = null;
    else if (typeof v === 'number' || typeof v === 'string')
      patch.poll_minutes = configParse('pollMinutes', String(v), 'poll_minutes') as number;
    else throw new BadRequestError('poll_minutes must be a whole number of minutes (0 = off), or null for automatic.');
  }
  return patch;
}
