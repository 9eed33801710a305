// Shapes of the service's answers the UI reads (docs: /work/shared/spec/rest-api.md and DESIGN §4).
import type { Trace } from '../../server/engine/model.js';

export type { Trace, ConditionTrace, ActionTrace, FieldChange } from '../../server/engine/model.js';

export interface Me {
  username: string;
}

export interface UiConfig {
  dms_url: string;
  demo?: boolean;
  webhook_path?: string;
  webhook_token_configured?: boolean;
  webhook_dry_run?: boolean;
}

export interface RuleFileEntry {
  id: string;
  name: string;
  path: string;
  package: string | null;
  is_vars: boolean;
  has_draft: boolean;
  /** Why the file did not load (broken YAML or schema), when it did not. */
  error?: string | { message?: string; line?: number | null; column?: number | null } | null;
  /** Ids of the rules loaded from this file. */
  rules?: string[];
}

export interface RuleList {
  files: RuleFileEntry[];
  loaded: Record<string, string | null>;
}

export interface RuleFileContent {
  id: string;
  name: string;
  path: string;
  content: string;
}

export interface Warning {
  message: string;
  line?: number;
  column?: number;
}

export interface SaveResult {
  ok: boolean;
  warnings?: (string | Warning)[];
  /** A draft save reports validation without refusing it. */
  error?: string;
  line?: number;
  column?: number;
  valid?: boolean;
  validation?: { ok?: boolean; error?: string; line?: number; column?: number; warnings?: (string | Warning)[] } | null;
}

export interface RunResult {
  ok: boolean;
  queued: boolean;
  document?: number;
  rule_id?: string | null;
  dry_run: boolean;
  traces?: Trace[];
  event_id?: number;
}

export type { EventRecord as JobEvent, EventStatus, JobReport } from '../../server/history/event-types.js';

export interface DocumentHit {
  id: number;
  title: string;
  correspondent?: string | number | null;
  created?: string | null;
}

export interface Settings {
  dms_url: string | null;
  dms_token_set: boolean;
  admin_user: string | null;
  admin_password_set: boolean;
  api_token_set: boolean;
  webhook_dry_run: boolean;
  restart_required?: boolean;
  /** Settings an environment variable fixes; changing them here would have no effect. */
  overridden_by_env?: string[];
  config_file?: string;
}
