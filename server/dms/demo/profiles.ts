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
  /** How the release's code behaves where releases differ (absent: as 3.0.5). */
  behaviour?: SimBehaviour;
}

/** The behaviours that differ between the supported releases, each with where the source decides it. */
export interface SimBehaviour {
  /** 2.19.0+: tags have `parent`; PATCH adds ancestors and drops descendants of removed tags (`DocumentSerializer.update`). */
  tagHierarchy: boolean;
  /** 2.16–2.18: bulk `modify_custom_fields` evaluates `doc_id in value` for a document-link field even when the value is null: TypeError → 400 text, earlier fields stored (bulk_edit.py, guarded by `and value` from 2.19.0). */
  bulkNullLinkFails: boolean;
  /** 2.20.13+: `validate_documentlink_targets` also in bulk edits (missing targets → 400) and wants change permission on every target (403), in PATCH too. Before, bulk stores a dangling link and then fails mirroring it (400 text). */
  linkTargetsChecked: boolean;
  /** 2.x: `DocumentViewSet.update` re-reads with `get_object()` (the permission filter): giving the document away answers 404 after the commit, no webhook. 3.0 re-reads with `get_queryset()`: 200. */
  ownerChangeAnswers404: boolean;
  /** 3.0.0+: workflow templates know `{{ doc_id }}`. */
  webhookDocId: boolean;
  /** 3.0.5: bulk custom-field values go through `CustomFieldInstanceSerializer` (400 keyed by field id). Before, a bad value is stored, or the database refuses it → 400 text. */
  bulkValuesValidated: boolean;
  /** 2.16–2.20.1: every custom-field instance's post_save moves the document's `modified` (`update_filename_and_move_files`; from 2.20.2 only when the file-name template names `custom_fields`), so bulk `modify_custom_fields` moves it within the request. */
  instanceSaveMovesModified: boolean;
  /** 3.0: documents carry `duplicate_documents`, `root_document`, `versions`; lists drop `all` at API version 10 (2.x: `all` always). */
  v3Fields: boolean;
}

const V3_0_5: SimBehaviour = {
  tagHierarchy: true,
  bulkNullLinkFails: false,
  linkTargetsChecked: true,
  ownerChangeAnswers404: false,
  webhookDocId: true,
  bulkValuesValidated: true,
  instanceSaveMovesModified: false,
  v3Fields: true,
};
const V3_0_4: SimBehaviour = { ...V3_0_5, bulkValuesValidated: false };
const V2_20_13: SimBehaviour = { ...V3_0_4, ownerChangeAnswers404: true, webhookDocId: false, v3Fields: false };
const V2_20_11: SimBehaviour = { ...V2_20_13, linkTargetsChecked: false };
const V2_18: SimBehaviour = {
  ...V2_20_11,
  tagHierarchy: false,
  bulkNullLinkFails: true,
  instanceSaveMovesModified: true,
};

/** The behaviour of a profile (a custom profile without one behaves as 3.0.5). */
export function behaviourOf(profile: SimProfile): SimBehaviour {
  return profile.behaviour ?? V3_0_5;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * One profile per release group whose behaviour differs; API versions from `REST_FRAMEWORK` in
 * `src/paperless/settings/__init__.py` (3.0.x) and `src/paperless/settings.py` (2.x).
 */
export const SIM_PROFILES = {
  '3.0': { name: '3.0', release: '3.0.5', apiVersions: [9, 10], defaultApiVersion: 10, behaviour: V3_0_5 },
  '3.0.4': { name: '3.0.4', release: '3.0.4', apiVersions: [9, 10], defaultApiVersion: 10, behaviour: V3_0_4 },
  '2.20.13': {
    name: '2.20.13',
    release: '2.20.15',
    apiVersions: range(1, 9),
    defaultApiVersion: 9,
    behaviour: V2_20_13,
  },
  '2.20': { name: '2.20', release: '2.20.11', apiVersions: range(1, 9), defaultApiVersion: 9, behaviour: V2_20_11 },
  '2.18': { name: '2.18', release: '2.18.4', apiVersions: range(1, 9), defaultApiVersion: 9, behaviour: V2_18 },
} satisfies Record<string, SimProfile>;

/** Every named profile, newest release first (tests that must hold on every release loop over these). */
export const ALL_PROFILES = Object.keys(SIM_PROFILES) as Array<keyof typeof SIM_PROFILES>;

export type SimProfileName = keyof typeof SIM_PROFILES;

export const DEFAULT_PROFILE: SimProfileName = '3.0';

/** A named profile, or a custom one (tests pose as releases the client does not support). */
export function resolveProfile(profile: SimProfileName | SimProfile | undefined): SimProfile {
  if (profile === undefined) return SIM_PROFILES[DEFAULT_PROFILE];
  if (typeof profile !== 'string') return profile;
  const found: SimProfile | undefined = (SIM_PROFILES as Record<string, SimProfile>)[profile];
  if (!found)
    throw new Error(`Unknown simulator profile "${profile}"; use one of ${Object.keys(SIM_PROFILES).join(', ')}.`);
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
