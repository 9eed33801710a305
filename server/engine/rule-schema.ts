/**
 * The rule language (schema version 1) as JSON Schema: the single source of truth for validation (ajv),
 * the editor's completion (`GET /api/ui/schema`) and the reference in `docs/rules.md`.
 * Semantics that JSON Schema cannot say well (exactly one action key, regex safety, templates,
 * unique ids, dms names) are checked by the later validation stages.
 */
import { ruleTestDefinitions } from './rule-test-schema.js';

export const DOCUMENT_FIELDS = [
  'id',
  'title',
  'content',
  'tags',
  'correspondent',
  'document_type',
  'storage_path',
  'created',
  'added',
  'modified',
  'archive_serial_number',
  'original_file_name',
  'mime_type',
  'page_count',
  'notes',
  'owner',
] as const;

export const CUSTOM_FIELD_PATTERN = '^custom_fields\\..+$';

/** Who may view or change a document besides its owner, as condition fields (lists of user and group names). */
export const PERMISSION_FIELDS = [
  'permissions.view.users',
  'permissions.view.groups',
  'permissions.change.users',
  'permissions.change.groups',
] as const;

/** Paperless's matching algorithms "any word", "all words" and "fuzzy" (documents/matching.py). */
export const WORD_OPERATORS = ['any_word', 'all_words', 'fuzzy'] as const;
export const TEXT_OPERATORS = [
  'equals',
  'in',
  'contains',
  'contains_any',
  'starts_with',
  'ends_with',
  'matches',
  ...WORD_OPERATORS,
  'exists',
  'empty',
] as const;
export const COMPARISON_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
export const TAG_OPERATORS = ['any', 'all', 'none'] as const;
export const OPERATORS = [...TEXT_OPERATORS, ...COMPARISON_OPERATORS, ...TAG_OPERATORS] as const;
export const COMBINATORS = ['all', 'any', 'not'] as const;
/** Condition keys that are neither a combinator nor a field. */
export const COMPUTED_CONDITIONS = ['check'] as const;

export const ACTIONS = [
  'set_title',
  'add_tags',
  'remove_tags',
  'set_tags',
  'set_correspondent',
  'set_document_type',
  'set_storage_path',
  'set_custom_fields',
  'add_custom_fields',
  'remove_custom_fields',
  'set_created',
  'set_archive_serial_number',
  'add_note',
  'notify',
  'set_owner',
  'set_permissions',
  'add_permissions',
  'remove_permissions',
  'move_to_trash',
] as const;

export const ACTION_MODIFIERS = ['if', 'if_empty', 'create_missing', 'if_changed', 'path'] as const;
export const EXTRACTION_TYPES = ['string', 'int', 'number', 'money', 'date', 'bool'] as const;
/** Which matches an extraction keeps. */
export const EXTRACTION_PICKS = ['first', 'last', 'all'] as const;
export const TRIGGERS = ['added', 'updated', 'manual'] as const;
export const RULE_ID_PATTERN = '^[a-z0-9][a-z0-9_-]*$';
export const EXTRACT_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

const scalar = { type: ['string', 'number', 'boolean', 'null'] };
const stringOrList = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] };
const fieldRef = {
  type: 'object',
  additionalProperties: false,
  required: ['field'],
  properties: {
    field: {
      type: 'string',
      description: 'Another field of the same document: a document field or custom_fields.<name>',
    },
  },
};
const comparable = {
  oneOf: [{ type: ['number', 'string'] }, fieldRef],
  description:
    'A number, a date (yyyy-MM-dd), a relative date such as -30d, +1w, -6m, -1y, or { field: <another field> }',
};

const operatorTest = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    equals: {
      oneOf: [scalar, fieldRef],
      description:
        'Equal to a value or { field: <another field> } (text compares case-insensitively unless case_sensitive: true)',
    },
    in: { type: 'array', items: scalar, minItems: 1, description: 'Equal to one of these' },
    contains: { type: ['string', 'number'], description: 'Text contains this; a list (tags, notes) has this element' },
    contains_any: {
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      description: 'Contains at least one of these',
    },
    starts_with: { type: 'string' },
    ends_with: { type: 'string' },
    matches: {
      ...stringOrList,
      description:
        'Regular expression (RE2 syntax, linear time); (?i) for case-insensitive. A list matches when any does.',
    },
    any_word: {
      ...stringOrList,
      description:
        'Has at least one of these whole words ("quoted phrases" stay together), as Paperless\'s "any word" matching',
    },
    all_words: {
      ...stringOrList,
      description:
        'Has every one of these whole words ("quoted phrases" stay together), as Paperless\'s "all words" matching',
    },
    fuzzy: {
      ...stringOrList,
      description:
        'Resembles this text somewhere (similarity ≥ 90 of 100, punctuation ignored), as Paperless\'s "fuzzy" matching',
    },
    exists: {
      type: 'boolean',
      description: 'The field has a value (not null; for custom fields: attached to the document)',
    },
    empty: { type: 'boolean', description: 'The value is null, an empty text or an empty list' },
    gt: comparable,
    gte: comparable,
    lt: comparable,
    lte: comparable,
    any: { ...stringOrList, description: 'Tags: has at least one of these' },
    all: { ...stringOrList, description: 'Tags: has every one of these' },
    none: { ...stringOrList, description: 'Tags: has none of these' },
    case_sensitive: { type: 'boolean', default: false },
  },
};

const fieldTest = { oneOf: [scalar, { $ref: '#/definitions/operatorTest' }] };

const fieldProperties = Object.fromEntries(
  [...DOCUMENT_FIELDS, ...PERMISSION_FIELDS].map((f) => [f, { $ref: '#/definitions/fieldTest' }]),
);

const condition = {
  type: 'object',
  description: 'Exactly one key: all, any, not, check, or a document field',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
  properties: {
    all: {
      type: 'array',
      items: { $ref: '#/definitions/condition' },
      minItems: 1,
      description: 'Every condition holds',
    },
    any: {
      type: 'array',
      items: { $ref: '#/definitions/condition' },
      minItems: 1,
      description: 'At least one condition holds',
    },
    not: { $ref: '#/definitions/condition', description: 'The condition does not hold' },
    check: {
      type: 'string',
      minLength: 1,
      description:
        'A Liquid expression ("total > 1000 and doc.page_count < 3") or a template that must render truthy; sees doc, vars, now, rule and extracted values',
    },
    ...fieldProperties,
  },
  patternProperties: { [CUSTOM_FIELD_PATTERN]: { $ref: '#/definitions/fieldTest' } },
};

/** `query:` extraction keys (docs/rules.md, "Queries over other documents"). */
export const QUERY_KIND_NAMES = ['count', 'ids', 'first', 'last', 'max', 'min'] as const;
/** The fields a query's `where` may test (the dms's list filters answer them), besides custom_fields.<name>. */
export const QUERY_WHERE_FIELDS = [
  'title',
  'content',
  'correspondent',
  'document_type',
  'storage_path',
  'tags',
  'archive_serial_number',
  'created',
  'added',
] as const;
/** The fields `query: max|min` may read (the dms can sort by them), besides custom_fields.<name>. */
export const QUERY_ORDER_FIELDS = ['archive_serial_number', 'created', 'added'] as const;
const queryExtractionProperties = {
  query: {
    enum: [...QUERY_KIND_NAMES],
    description:
      "Instead of regex/value: ask the dms about other documents matching where: count, ids (oldest first, at most 25), first/last (the oldest/newest one's id), max/min (of field)",
  },
  field: {
    anyOf: [{ enum: [...QUERY_ORDER_FIELDS] }, { type: 'string', pattern: CUSTOM_FIELD_PATTERN }],
    description: 'query: max/min: the field read: archive_serial_number, created, added or custom_fields.<name>',
  },
  where: {
    type: 'object',
    description: 'query: which other documents: field → value (template) or { operator: value }, every one must hold',
    additionalProperties: false,
    properties: Object.fromEntries(QUERY_WHERE_FIELDS.map((f) => [f, { $ref: '#/definitions/fieldTest' }])),
    patternProperties: { [CUSTOM_FIELD_PATTERN]: { $ref: '#/definitions/fieldTest' } },
  },
};

const extraction = {
  type: 'object',
  additionalProperties: false,
  anyOf: [{ required: ['regex'] }, { required: ['value'] }, { required: ['query'] }],
  properties: {
    from: {
      type: 'string',
      default: 'content',
      description: 'Field to read: content, title, original_file_name, notes or custom_fields.<name>',
    },
    regex: {
      ...stringOrList,
      description: 'Pattern(s) tried in order; the named group "value" or group 1 is the value',
    },
    value: {
      type: 'string',
      description: 'A Liquid template instead of a regex, computed from doc and earlier values',
    },
    type: { enum: [...EXTRACTION_TYPES], default: 'string' },
    pick: { enum: [...EXTRACTION_PICKS], default: 'first' },
    format: { type: 'string', description: 'Date format such as dd.MM.yyyy, MM/dd/yyyy or yyyy-MM-dd' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Currency for money values that name none' },
    default: scalar,
    required: { type: 'boolean', default: false, description: 'No value makes the rule not match' },
    locale: {
      type: 'string',
      description:
        'Read numbers and dates as this language writes them (fr, es, it, nl, de-AT, en-US…): month names, day/month order, separators',
    },
    groups: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: EXTRACT_NAME_PATTERN },
      additionalProperties: { $ref: '#/definitions/extractionGroup' },
      description: 'One regex, several values: each named group (?<name>…) becomes a value of its own, typed here',
    },
    ...queryExtractionProperties,
  },
};

const extractionGroup = {
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'A value read from the named group of the same name',
  properties: {
    type: { enum: [...EXTRACTION_TYPES], default: 'string' },
    format: { type: 'string', description: 'Date format such as dd.MM.yyyy or d MMMM yyyy' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Currency for money values that name none' },
    locale: {
      type: 'string',
      description: "Language of this group's numbers and dates (default: the extraction's locale)",
    },
    default: scalar,
    required: { type: 'boolean', default: false, description: 'No value makes the rule not match' },
  },
};

const names = { ...stringOrList, description: 'Names (templates allowed)' };
const permissionLists = (verb: string) => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    users: { ...stringOrList, description: `User names ${verb}` },
    groups: { ...stringOrList, description: `Group names ${verb}` },
  },
});
const permissions = (verb: string, description: string) => ({
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  description,
  properties: {
    view: { ...permissionLists(verb), description: `Who may see the document; ${verb}` },
    change: { ...permissionLists(verb), description: `Who may edit the document (and so see it); ${verb}` },
  },
});
const nullableName = { type: ['string', 'null'], description: 'A name (template allowed); null clears it' };

const action = {
  type: 'object',
  description: 'Exactly one action, plus optional if_empty / create_missing',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    set_title: { type: 'string', maxLength: 4096, description: 'New title (template; the dms keeps 128 characters)' },
    add_tags: names,
    remove_tags: names,
    set_tags: {
      oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
      description: 'Replace all tags',
    },
    set_correspondent: nullableName,
    set_document_type: nullableName,
    set_storage_path: nullableName,
    set_custom_fields: {
      type: 'object',
      minProperties: 1,
      additionalProperties: scalar,
      description: "Custom field name → value (template), converted to the field's data type",
    },
    add_custom_fields: {
      ...stringOrList,
      description: 'Attach custom fields without a value (one already attached keeps its value)',
    },
    remove_custom_fields: {
      ...stringOrList,
      description: 'Detach custom fields from the document (an empty value only clears a field)',
    },
    set_created: { type: 'string', description: 'Document date (template rendering a date)' },
    set_archive_serial_number: { type: ['integer', 'string', 'null'] },
    add_note: { type: 'string', minLength: 1, description: 'Adds a note unless an identical one exists' },
    notify: {
      type: 'object',
      additionalProperties: false,
      required: ['to'],
      description: 'Sends a message to a notify target named in the settings (when: on_change, always or once)',
      properties: {
        to: {
          type: 'string',
          minLength: 1,
          description: 'The name of a notify target from the settings (notify_targets)',
        },
        title: { type: 'string', description: 'Title or e-mail subject (template)' },
        message: { type: 'string', minLength: 1, description: 'Message text (template)' },
        when: {
          enum: ['on_change', 'always', 'once'],
          description:
            "When a real run sends: on_change (default) when the rule's changes are written or the document was just added; always on each run that matches; once per document, ever",
        },
        attach: {
          enum: ['original', 'archive'],
          description: 'E-mail targets: attach the document, as uploaded (original) or the archived PDF (archive)',
        },
        body: {
          type: 'string',
          description: "HTTP targets: the request body (template), instead of the target format's own",
        },
        headers: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description:
            'HTTP targets: extra request headers, name → value (template); not Host, Content-Length, Authorization, Idempotency-Key…',
        },
      },
    },
    set_owner: {
      type: ['string', 'null'],
      description: "The owner's user name (template allowed); null: no owner, every user may see the document",
    },
    set_permissions: permissions(
      'exactly these',
      'Replace who may view or change the document; lists left out stay as they are',
    ),
    add_permissions: permissions('added', 'Let these users and groups view or change the document too'),
    remove_permissions: {
      oneOf: [
        permissions('removed', 'Take view or change permissions away'),
        { const: 'all', description: 'Take every view and change permission away' },
      ],
    },
    move_to_trash: {
      // enum rather than const: the editor completes enum values.
      enum: [true],
      description:
        "Move the document to the dms's trash (restorable there, and by undoing the job) after the rule's other changes",
    },
    if: {
      $ref: '#/definitions/condition',
      description:
        'Only when this condition holds (the language of when:, extracted values included); else the action is skipped',
    },
    if_empty: { type: 'boolean', default: false, description: 'Only set fields that have no value yet' },
    create_missing: {
      type: 'boolean',
      default: false,
      description: 'Create tags, correspondents, document types and storage paths the dms lacks',
    },
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description:
        'set_storage_path with create_missing: the Paperless path template of a created storage path, e.g. "{{ created_year }}/{{ title }}" (Paperless renders it; default "<name>/{{ title }}")',
    },
    if_changed: {
      type: 'boolean',
      default: false,
      description: 'Only when the rules before it (earlier rules and actions in this run) changed the document',
    },
  },
};

const rule = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: RULE_ID_PATTERN, maxLength: 100, description: 'Unique across all rule files' },
    description: { type: 'string', description: 'What the rule does, in words (shown in lists and traces)' },
    enabled: { type: 'boolean', default: true, description: 'false keeps the rule in the file but never runs it' },
    on: {
      type: 'array',
      items: { enum: [...TRIGGERS] },
      uniqueItems: true,
      minItems: 1,
      description: 'Triggers that run the rule (default all); jobs always run it',
    },
    when: {
      $ref: '#/definitions/condition',
      description: 'Which documents the rule is for: one condition (all:/any: for several)',
    },
    extract: {
      type: 'object',
      description: 'Values read from the document (regex) or computed (value), by name',
      propertyNames: { pattern: EXTRACT_NAME_PATTERN },
      additionalProperties: { $ref: '#/definitions/extraction' },
    },
    actions: {
      type: 'array',
      items: { $ref: '#/definitions/action' },
      description: 'What to set on a matching document, in order',
    },
    stop: { type: 'boolean', default: false, description: 'After a match, no later rule runs on this document' },
    tests: {
      type: 'array',
      items: { $ref: '#/definitions/ruleTest' },
      description: 'Example documents and what the rule must do with them',
    },
    schedule: { $ref: '#/definitions/schedule' },
  },
};

const schedule = {
  type: 'object',
  additionalProperties: false,
  oneOf: [{ required: ['daily'] }, { required: ['cron'] }],
  description: 'Run the rule over all documents as a background job at these times (server local time)',
  properties: {
    daily: {
      type: 'string',
      pattern: '^([01]?\\d|2[0-3]):[0-5]\\d$',
      description: 'Every day at this time, e.g. "06:30"',
    },
    cron: {
      type: 'string',
      description: 'Cron expression with five fields: minute hour day month weekday, e.g. "0 6 * * 1-5"',
    },
    dry_run: { type: 'boolean', default: false, description: 'Scheduled runs only record what they would change' },
  },
};

/** A rule file: `rules:` holding a list of rules. */
export const RULE_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://dms-rules.local/schema/rule-file.json',
  title: 'dms-rules rule file (schema version 1)',
  type: 'object',
  additionalProperties: false,
  required: ['rules'],
  properties: {
    rules: { type: 'array', items: { $ref: '#/definitions/rule' } },
  },
  definitions: {
    rule,
    schedule,
    condition,
    fieldTest,
    operatorTest,
    extraction,
    extractionGroup,
    action,
    ...ruleTestDefinitions(TRIGGERS),
  },
} as const;

/** A `_vars.yml` file: any mapping; string values are Liquid templates rendered at load. */
export const VARS_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://dms-rules.local/schema/vars-file.json',
  title: 'dms-rules variables file',
  type: ['object', 'null'],
} as const;
