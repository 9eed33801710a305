/**
 * The rule language's data model (docs/rules.md) shared by the engine, the rules store, runs and the UI.
 * Rule definitions mirror `rule-schema.ts`, the one source of the language's names: triggers, action names,
 * extraction types and picks are derived from its `as const` lists (test/unit/engine/model-schema.test.ts
 * checks the rest against it). Documents and changes are in *names*, never dms ids.
 */
import type { ACTIONS, EXTRACTION_PICKS, EXTRACTION_TYPES, QUERY_KIND_NAMES, TRIGGERS } from './rule-schema.js';

export type Trigger = (typeof TRIGGERS)[number];
/** What started an evaluation; jobs run every enabled rule regardless of `on`. */
export type RunTrigger = Trigger | 'job';

export type Scalar = string | number | boolean | null;

// ---- rule definitions (what a rule file holds after schema validation) ----

/** `{ field: created }`: compare with another field of the same document. */
export interface FieldRef {
  field: string;
}

export interface OperatorTest {
  equals?: Scalar | FieldRef;
  in?: Scalar[];
  contains?: string | number;
  contains_any?: string[];
  starts_with?: string;
  ends_with?: string;
  matches?: string | string[];
  /** Paperless's "any word" / "all words": whole words, `"quoted phrases"` together. */
  any_word?: string | string[];
  all_words?: string | string[];
  /** Paperless's "fuzzy": partial similarity of at least 90 of 100, punctuation ignored. */
  fuzzy?: string | string[];
  exists?: boolean;
  empty?: boolean;
  gt?: number | string | FieldRef;
  gte?: number | string | FieldRef;
  lt?: number | string | FieldRef;
  lte?: number | string | FieldRef;
  /** Tag lists: has any / all / none of these. */
  any?: string[] | string;
  all?: string[] | string;
  none?: string[] | string;
  case_sensitive?: boolean;
}

/** A scalar is shorthand for `equals`. */
export type FieldTest = Scalar | OperatorTest;

/** Exactly one key: a combinator or a field name (`custom_fields.<name>` included). */
export type Condition =
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition }
  /** A Liquid expression or a template that must render truthy. */
  | { check: string }
  | { [field: string]: FieldTest };

export type ExtractionType = (typeof EXTRACTION_TYPES)[number];
export type ExtractionPick = (typeof EXTRACTION_PICKS)[number];

export interface Extraction {
  from?: string;
  regex?: string | string[];
  /** Alternative to `regex`: a Liquid template computed from the document and earlier values. */
  value?: string;
  type?: ExtractionType;
  pick?: ExtractionPick;
  /** Date input format such as `dd.MM.yyyy`; without it common German and English forms are recognised. */
  format?: string;
  /** Currency for `money` when the text has none (else the custom field's default). */
  currency?: string;
  default?: Scalar;
  required?: boolean;
  /** Read numbers and dates as this language writes them (`fr`, `es`, `it`, `nl`, `de-AT`…): month names, separators. */
  locale?: string;
  /** One regex, several named groups, several typed values: group name → its type and options. */
  groups?: Record<string, ExtractionGroup>;
  /** Alternative to `regex`/`value`: a question about other documents, answered by the dms (count, ids, first, last, max, min). */
  query?: QueryKind;
  /** `query: max|min`: the field read (archive_serial_number, created, added, custom_fields.<name>). */
  field?: string;
  /** `query`: field → value or operator test (templates allowed); every one must hold. */
  where?: Record<string, FieldTest>;
}

export type QueryKind = (typeof QUERY_KIND_NAMES)[number];

/** One named group of a `groups:` extraction: a value of its own, typed like an extraction. */
export type ExtractionGroup = Pick<Extraction, 'type' | 'format' | 'currency' | 'locale' | 'default' | 'required'>;

export interface ActionModifiers {
  /** Any action: only when this condition holds (the language of `when:`), evaluated when the action's turn comes. */
  if?: Condition;
  /** `set_custom_fields`: only fill fields that are empty, never overwrite what a person set. */
  if_empty?: boolean;
  /** Create tags, correspondents or document types that the dms does not have yet. */
  create_missing?: boolean;
  /** `set_storage_path` with `create_missing`: the Paperless path template of a storage path it creates (not rendered here). */
  path?: string;
  /** Any action: only when the rules before it in this run changed the document ("mark what the rules changed"). */
  if_changed?: boolean;
}

/** `notify:` — a message to a target named in the settings (never an address in the rule). */
export interface NotifyBody {
  to: string;
  title?: string;
  /** Required unless `body` is given. */
  message?: string;
  /** Which real runs send (default on_change); `once`: once per document and rule, kept by the service. */
  when?: 'on_change' | 'always' | 'once';
  /** E-mail targets: the document's file as an attachment. */
  attach?: 'original' | 'archive';
  /** HTTP targets: the request body (template). */
  body?: string;
  /** HTTP targets: extra headers, name → value (template). */
  headers?: Record<string, string>;
}

export interface ActionBodies {
  set_title?: string;
  add_tags?: string | string[];
  remove_tags?: string | string[];
  set_tags?: string | string[];
  set_correspondent?: string | null;
  set_document_type?: string | null;
  set_storage_path?: string | null;
  set_custom_fields?: Record<string, Scalar>;
  /** Attach custom fields without a value (a field already attached keeps its value). */
  add_custom_fields?: string | string[];
  /** Detach custom fields from the document (an empty value only clears a field; this takes it off). */
  remove_custom_fields?: string | string[];
  set_created?: string;
  set_archive_serial_number?: number | string | null;
  add_note?: string;
  notify?: NotifyBody;
  /** A user name; null leaves the document without owner (everyone may see it). */
  set_owner?: string | null;
  /** Each list given replaces who has that permission; lists not given stay as they are. */
  set_permissions?: PermissionsBody;
  add_permissions?: PermissionsBody;
  /** `all` takes every view and change permission away (the owner keeps the document). */
  remove_permissions?: PermissionsBody | 'all';
  /** `move_to_trash: true` — the dms moves the document to its trash (restorable) after the rule's other changes. */
  move_to_trash?: true;
}

export type PermissionKind = 'view' | 'change';
export type PermissionTarget = 'users' | 'groups';

/** `{ view: { users: [ben], groups: [Family] }, change: { … } }`: names (templates allowed), any part may be left out. */
export type PermissionsBody = Partial<Record<PermissionKind, Partial<Record<PermissionTarget, string | string[]>>>>;

export type PartialPermissions = Partial<Record<PermissionKind, Partial<Record<PermissionTarget, string[]>>>>;

/** Who may view and who may change a document besides its owner, by user name and group name. */
export type DocumentPermissions = Record<PermissionKind, Record<PermissionTarget, string[]>>;

/** `ActionBodies` has exactly one key per name (checked in model-schema.test.ts). */
export type ActionName = (typeof ACTIONS)[number];
/** Exactly one action key plus optional modifiers. */
export type Action = ActionBodies & ActionModifiers;

export interface RuleTestCase {
  name?: string;
  trigger?: RunTrigger;
  /** The time the test runs at (`2025-03-01` or an ISO date-time); without it, the caller's clock. */
  now?: string;
  /** Permissions may give any of their four lists. */
  document: Partial<Omit<RuleDocumentInput, 'permissions'>> & { permissions?: PartialPermissions };
  vars?: Record<string, unknown>;
  /** The other documents a `query` extraction sees in this test (the dms is never asked in a test). */
  documents?: Array<Partial<Omit<RuleDocumentInput, 'permissions'>>>;
  expect: {
    matched: boolean;
    changes?: Record<string, unknown>;
    extracted?: Record<string, unknown>;
    /** Fields the rule must leave as the test document has them (`custom_fields.Betrag`, `title`, `tags`). */
    unchanged?: string[];
    /** Targets a real run would send to, decided as the run layer decides (`notifyFires`). */
    notify?: string[];
  };
}

/** `schedule:` — a background job over all documents at these times (server local time). */
export interface RuleSchedule {
  daily?: string;
  cron?: string;
  dry_run?: boolean;
}

export interface RuleDefinition {
  id: string;
  description?: string;
  enabled?: boolean;
  on?: Trigger[];
  when?: Condition;
  extract?: Record<string, Extraction>;
  actions?: Action[];
  stop?: boolean;
  tests?: RuleTestCase[];
  schedule?: RuleSchedule;
}

export interface RuleFileDefinition {
  rules: RuleDefinition[];
}

// ---- documents as rules see them (ids resolved to names) ----

/** Custom field values: monetary as `{amount, currency}`, select as its label, dates as `yyyy-MM-dd`. */
export type CustomFieldValue = string | number | boolean | null | number[] | MoneyValue;

export interface MoneyValue {
  amount: number;
  currency: string | null;
}

export interface RuleDocument {
  id: number;
  title: string;
  content: string;
  tags: string[];
  correspondent: string | null;
  document_type: string | null;
  storage_path: string | null;
  custom_fields: Record<string, CustomFieldValue>;
  created: string | null;
  added: string | null;
  modified: string | null;
  archive_serial_number: number | null;
  original_file_name: string | null;
  mime_type: string | null;
  page_count: number | null;
  notes: string[];
  /** The owner's user name (`#id` when the token may not list users); null: no owner. */
  owner: string | null;
  /** Null when the document was read without them (no rule needed them). */
  permissions: DocumentPermissions | null;
  /** Set by `move_to_trash`: the run moves the document to the dms's trash. */
  trashed?: boolean;
}

/** What a rule's `tests:` may give: any subset; the rest defaults to empty values. */
export type RuleDocumentInput = Omit<RuleDocument, 'id'> & { id?: number };

// ---- the outcome of evaluating rules against one document ----

/** Field → new value, in names. `tags` is the whole new set; `notes` are notes to add. */
export interface DocumentChanges {
  title?: string;
  correspondent?: string | null;
  document_type?: string | null;
  storage_path?: string | null;
  tags?: string[];
  custom_fields?: Record<string, CustomFieldValue>;
  /** Custom fields to detach from the document. */
  remove_custom_fields?: string[];
  created?: string;
  archive_serial_number?: number | null;
  notes?: string[];
  owner?: string | null;
  /** The whole new permission sets. */
  permissions?: DocumentPermissions;
  /** Move the document to the dms's trash, after the other changes are written. */
  trash?: true;
}

/**
 * The dms's tag tree by name (Paperless 2.19.0+): adding a tag adds its ancestors, removing one removes its
 * descendants. Given to the engine so a rule's tags are what Paperless will store.
 */
export interface TagHierarchy {
  ancestors(name: string): string[];
  descendants(name: string): string[];
}

/** Names the plan may create in the dms because an action said `create_missing: true`. */
export interface CreateMissing {
  tags?: string[];
  correspondents?: string[];
  document_types?: string[];
  storage_paths?: string[];
  /** Lower-cased storage path name → the Paperless path template to create it with (the action's `path`). */
  storage_path_templates?: Record<string, string>;
}

// ---- traces (docs/rules.md, "Traces") ----

export type TraceStatus = 'matched' | 'not_matched' | 'error' | 'skipped' | 'timeout';
export type TraceSource = 'manual' | 'webhook' | 'job' | 'catchup';
export type ActionStatus = 'planned' | 'applied' | 'unchanged' | 'failed' | 'skipped';

export interface ConditionTrace {
  /** Where in the rule, e.g. `when/all/1/not`. */
  path: string;
  /** A person-readable line, e.g. `content matches "(?i)invoice"`. */
  description: string;
  field?: string;
  operator?: string;
  expected?: unknown;
  /** What the condition saw (long text shortened). */
  actual?: unknown;
  result: boolean;
  error?: string;
}

export interface ActionTrace {
  path: string;
  action: ActionName;
  status: ActionStatus;
  detail?: string;
  error?: string;
}

export interface FieldChange {
  from: unknown;
  to: unknown;
  /** Custom fields: null is "not attached"; `empty` names the side where the field is attached with no value. */
  empty?: 'from' | 'to';
}

export interface Trace {
  id: string;
  at: string;
  duration_ms: number;
  source: TraceSource;
  event_id: number | null;
  document: number;
  rule_id: string;
  file: string;
  dry_run: boolean;
  status: TraceStatus;
  conditions: ConditionTrace[];
  extracted: Record<string, unknown>;
  changes: Record<string, FieldChange>;
  actions: ActionTrace[];
  error: string | null;
}
