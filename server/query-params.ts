import { BadRequestError } from './app-errors.js';

/** Query-string values, checked one way everywhere; each malformed value is a 400 naming its parameter. */

export function singleParam(raw: unknown, name: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new BadRequestError(`Give "${name}" once, as a plain value.`);
  return raw;
}

export function positiveIntegerParam(raw: unknown, name: string, what = 'a positive whole number'): number | undefined {
  const value = singleParam(raw, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1)
    throw new BadRequestError(`"${name}" must be ${what}, got "${value}".`);
  return Number(value);
}

export function booleanParam(raw: unknown, name: string, fallback: boolean): boolean {
  const value = singleParam(raw, name);
  if (value === undefined) return fallback;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new BadRequestError(`"${name}" must be true, false, 1 or 0, got "${value}".`);
}

export function oneOfParam<T extends string>(raw: unknown, allowed: readonly T[], name: string): T | undefined {
  const value = singleParam(raw, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new BadRequestError(`"${name}" must be one of ${allowed.join(', ')}; got "${value}".`);
  return value as T;
}
