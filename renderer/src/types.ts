// Shapes of the service's answers the UI reads (docs/rule-files.md#api, docs/jobs-and-webhook.md, docs/rules.md#traces).
import type { Trace } from '../../server/engine/model.js';
import type { FileProblem } from '../../server/app-errors.js';
import type { RuleFileEntry } from '../../server/rules/rule-store-types.js';

export type { Trace, ConditionTrace, ActionTrace, FieldChange } from '../../server/engine/model.js';
export type { RuleFileContent, RuleFileEntry } from '../../server/rules/rule-store-types.js';
export type { DocumentHit } from '../../server/dms/document-search.js';
export type { RuleTestReport } from '../../server/rules/text-check.js';
export type { SettingsView as Settings } from '../../server/settings/settings-service.js';
export type { DmsHealth } from '../../server/dms/dms-connection.js';
export type { FileProblem } from '../../server/app-errors.js';

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

export interface RuleList {
  files: RuleFileEntry[];
  loaded: Record<string, string | null>;
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
  validation?: {
    ok?: boolean;
    error?: string;
    line?: number;
    column?: number;
    /** Every problem of the text, each with its range. */
    problems?: FileProblem[];
    warnings?: (string | Warning)[];
  } | null;
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
export type { ScheduleEntry } from '../../server/runs/schedules/schedule-service.js';

export type { DocumentView } from '../../server/runs/documents/document-view.js';
export type { ContentMatch as DocumentMatch } from '../../server/engine/content-matches.js';
