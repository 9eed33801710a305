// The dms's real names (tags, correspondents, …) as the editor needs them, read from `/api/ui/schema`.

export interface Vocabulary {
  tags: string[];
  correspondents: string[];
  document_types: string[];
  storage_paths: string[];
  custom_fields: string[];
  users: string[];
  groups: string[];
  /** Not the dms's: the notify targets from the settings, for `notify: { to: … }`. */
  notify_targets: string[];
}

export const EMPTY_VOCABULARY: Vocabulary = {
  tags: [],
  correspondents: [],
  document_types: [],
  storage_paths: [],
  custom_fields: [],
  users: [],
  groups: [],
  notify_targets: [],
};

function names(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((v) =>
      typeof v === 'string'
        ? v
        : v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string'
          ? (v as { name: string }).name
          : null,
    )
    .filter((v): v is string => v !== null);
}

/** Accepts lists of names or of `{name, …}` objects, under either the plural or the dms's key names. */
export function normalizeVocabulary(raw: unknown): Vocabulary {
  const v = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const dms = (v.dms && typeof v.dms === 'object' ? v.dms : v) as Record<string, unknown>;
  return {
    tags: names(dms.tags),
    correspondents: names(dms.correspondents),
    document_types: names(dms.document_types),
    storage_paths: names(dms.storage_paths),
    custom_fields: names(dms.custom_fields),
    users: names(dms.users),
    groups: names(dms.groups),
    notify_targets: names(v.notify_targets),
  };
}

/** The rule language's own words from `/api/ui/schema`: operators by field kind, modifiers, template names. */
export interface LanguageWords {
  fields: string[];
  text_operators: string[];
  comparison_operators: string[];
  tag_operators: string[];
  action_modifiers: string[];
  template_filters: string[];
  template_context: string[];
}

export function normalizeLanguage(raw: unknown): LanguageWords {
  const v = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const list = (key: keyof LanguageWords): string[] =>
    Array.isArray(v[key]) ? (v[key] as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  return {
    fields: list('fields'),
    text_operators: list('text_operators'),
    comparison_operators: list('comparison_operators'),
    tag_operators: list('tag_operators'),
    action_modifiers: list('action_modifiers'),
    template_filters: list('template_filters'),
    template_context: list('template_context'),
  };
}
