import type { DmsVocabulary } from '../dms/types.js';
import {
  ACTION_MODIFIERS,
  ACTIONS,
  COMBINATORS,
  COMPUTED_CONDITIONS,
  COMPARISON_OPERATORS,
  DOCUMENT_FIELDS,
  EXTRACTION_TYPES,
  OPERATORS,
  RULE_FILE_SCHEMA,
  TAG_OPERATORS,
  TEXT_OPERATORS,
  TRIGGERS,
  VARS_FILE_SCHEMA,
} from '../engine/rule-schema.js';
import { TEMPLATE_FILTERS } from '../engine/templates.js';

/** The dms's current names, for completion; empty lists with `error` set when the dms did not answer. */
export interface DmsNames {
  tags: string[];
  correspondents: string[];
  document_types: string[];
  storage_paths: string[];
  custom_fields: Array<{ name: string; data_type: string; options?: string[] }>;
  users: string[];
  groups: string[];
  error: string | null;
}

/** `GET /api/ui/schema`: the schema that validates rule files, and everything the editor completes. */
export interface SchemaInfo {
  schema: typeof RULE_FILE_SCHEMA;
  vars_schema: typeof VARS_FILE_SCHEMA;
  vocabulary: {
    keys: { file: string[]; rule: string[]; extraction: string[]; test: string[]; expect: string[] };
    fields: string[];
    combinators: string[];
    /** Condition keys that compute (`check`), for completion next to the combinators. */
    computed_conditions: string[];
    operators: string[];
    text_operators: string[];
    comparison_operators: string[];
    tag_operators: string[];
    actions: string[];
    action_modifiers: string[];
    extraction_types: string[];
    triggers: string[];
    template_filters: string[];
    template_context: string[];
    /** The names under `vars.` (global and every package's), for `{{ vars.… }}`. */
    vars: string[];
    dms: DmsNames;
  };
}

const keysOf = (schema: { properties: object }) => Object.keys(schema.properties);

export function dmsNames(vocabulary: DmsVocabulary | null, error: string | null): DmsNames {
  const names = (list: Array<{ name: string }> | undefined) => (list ?? []).map((o) => o.name);
  return {
    tags: names(vocabulary?.tags),
    correspondents: names(vocabulary?.correspondents),
    document_types: names(vocabulary?.document_types),
    storage_paths: names(vocabulary?.storage_paths),
    custom_fields: (vocabulary?.custom_fields ?? []).map((f) => {
      const options = f.extra_data.select_options?.map((o) => o.label) ?? [];
      return f.data_type === 'select'
        ? { name: f.name, data_type: f.data_type, options }
        : { name: f.name, data_type: f.data_type };
    }),
    users: names(vocabulary?.users),
    groups: names(vocabulary?.groups),
    error,
  };
}

export function schemaInfo(dms: DmsNames, varNames: string[] = []): SchemaInfo {
  const { rule, extraction, ruleTest } = RULE_FILE_SCHEMA.definitions;
  return {
    schema: RULE_FILE_SCHEMA,
    vars_schema: VARS_FILE_SCHEMA,
    vocabulary: {
      keys: {
        file: keysOf(RULE_FILE_SCHEMA),
        rule: keysOf(rule),
        extraction: keysOf(extraction),
        test: keysOf(ruleTest),
        expect: keysOf(ruleTest.properties.expect),
      },
      fields: [...DOCUMENT_FIELDS, ...dms.custom_fields.map((f) => `custom_fields.${f.name}`)],
      combinators: [...COMBINATORS],
      computed_conditions: [...COMPUTED_CONDITIONS],
      operators: [...OPERATORS],
      text_operators: [...TEXT_OPERATORS],
      comparison_operators: [...COMPARISON_OPERATORS],
      tag_operators: [...TAG_OPERATORS],
      actions: [...ACTIONS],
      action_modifiers: [...ACTION_MODIFIERS],
      extraction_types: [...EXTRACTION_TYPES],
      triggers: [...TRIGGERS],
      template_filters: [...TEMPLATE_FILTERS],
      template_context: ['doc', 'vars', 'now', 'today', 'rule'],
      vars: varNames,
      dms,
    },
  };
}
