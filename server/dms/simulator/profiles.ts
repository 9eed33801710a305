// The Paperless-ngx releases the simulator can pose as: their API version gates and the release they report.

export interface SimProfile {
  /** Profile name as given to `startSimulator({profile})` and `--profile`. */
  name: string;
  /** `X-Version` on authenticated responses. */
  release: string;
  /** `REST_FRAMEWORK["ALLOWED_VERSIONS"]`, oldest first; the last one is `X-Api-Version`. */
  apiVersions: number[];
  /** `DEFAULT_VERSION`: used when the Accept header names none. */
  defaultApiVersion: number;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** `src/paperless/settings/__init__.py` (3.0.x) and `src/paperless/settings.py` (2.20.x). */
export const SIM_PROFILES = {
  '3.0': { name: '3.0', release: '3.0.5', apiVersions: [9, 10], defaultApiVersion: 10 },
  '2.20': { name: '2.20', release: '2.20.11', apiVersions: range(1, 9), defaultApiVersion: 9 },
} satisfies Record<string, SimProfile>;

export type SimProfileName = keyof typeof SIM_PROFILES;

export const DEFAULT_PROFILE: SimProfileName = '3.0';

/** A named profile, or a custom one (tests pose as releases the client does not support). */
export function resolveProfile(profile: SimProfileName | SimProfile | undefined): SimProfile {
  if (profile === undefined) return SIM_PROFILES[DEFAULT_PROFILE];
  if (typeof profile !== 'string') return profile;
  const found: SimProfile | undefined = (SIM_PROFILES as Record<string, SimProfile>)[profile];
  if (!found) throw new Error(`Unknown simulator profile "${profile}"; use one of ${Object.keys(SIM_PROFILES).join(', ')}.`);
  return found;
}

/** The API version an `Accept` header asks for, or null when the profile does not allow it (→ 406). */
export function requestedApiVersion(profile: SimProfile, accept: string | undefined): number | null {
  const match = /version\s*=\s*([^;,\s]+)/i.exec(accept ?? '');
  if (!match) return profile.defaultApiVersion;
  const asked = /^\d+$/.test(match[1]) ? Number(match[1]) : NaN;
  return profile.apiVersions.includes(asked) ? asked : null;
}

/** The two headers Paperless's ApiVersionMiddleware adds to authenticated responses. */
export function versionHeaders(profile: SimProfile): Record<string, string> {
  return { 'x-api-version': String(profile.apiVersions[profile.apiVersions.length - 1]), 'x-version': profile.release };
}
