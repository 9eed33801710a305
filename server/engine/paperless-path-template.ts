/**
 * What Paperless makes of a storage path template (`path:` of a storage path a rule creates). Paperless renders it
 * itself, per document, with Jinja and its own variables (documents/templating/filepath.py in 2.18 and 3.0); the
 * rule's extracted values never reach it, and an unknown variable or filter makes Paperless refuse the path
 * ("Invalid variable detected."). This reads the template the way Paperless will, so a save can say so.
 */

/** The names Paperless's path context has (the same in 2.18.4 and 3.0.5). */
export const PAPERLESS_PATH_VARIABLES = [
  'title',
  'correspondent',
  'document_type',
  'asn',
  'owner_username',
  'original_name',
  'doc_pk',
  'created',
  'created_year',
  'created_year_short',
  'created_month',
  'created_month_name',
  'created_month_name_short',
  'created_day',
  'added',
  'added_year',
  'added_year_short',
  'added_month',
  'added_month_name',
  'added_month_name_short',
  'added_day',
  'tag_list',
  'tag_name_list',
  'custom_fields',
  'document',
] as const;

/** Paperless's own filters and Jinja's built-in ones. */
const PAPERLESS_FILTERS = new Set([
  'get_cf_value',
  'datetime',
  'slugify',
  'localize_date',
  ...'abs attr batch capitalize center count d default dictsort e escape filesizeformat first float forceescape format groupby indent int items join last length list lower map max min pprint random reject rejectattr replace reverse round safe select selectattr slice sort string striptags sum title tojson trim truncate unique upper urlencode urlize wordcount wordwrap xmlattr'.split(
    ' ',
  ),
]);

/** Words of Jinja statements and expressions that are no variables, and Jinja's global functions. */
const JINJA_WORDS = new Set(
  'if elif else endif for in endfor set endset not and or is none None true True false False loop break continue with endwith filter endfilter range dict lipsum cycler joiner namespace'.split(
    ' ',
  ),
);

export interface PathTemplateReading {
  /** `{{ … }}` and `{% … %}` parts Paperless fills in, as written. */
  rendered: string[];
  /** Parts Paperless cannot render (an unknown name or filter, Liquid syntax): it refuses the whole path. */
  refused: string[];
  /** Text between them, kept as written (slashes become folders). */
  literal: string[];
  /** Variables Paperless does not have (a rule's extracted value, a typo). */
  unknownVariables: string[];
  /** Filters Paperless does not have (`date`, `money` are the rule's, not Paperless's). */
  unknownFilters: string[];
  /** Liquid's `filter: argument` form, which Jinja cannot parse (`filter(argument)`). */
  liquidFilters: string[];
}

const TAG = /\{\{([\s\S]*?)\}\}|\{%-?([\s\S]*?)-?%\}|\{#[\s\S]*?#\}|(?<!\{)\{(\w*)\}(?!\})/g;
const STRING = /'[^']*'|"[^"]*"/g;

/** Null when the text has no template syntax at all. */
export function readPathTemplate(path: string): PathTemplateReading | null {
  const reading: PathTemplateReading = {
    rendered: [],
    refused: [],
    literal: [],
    unknownVariables: [],
    unknownFilters: [],
    liquidFilters: [],
  };
  let last = 0;
  const boundNames = new Set<string>();
  for (const m of path.matchAll(TAG)) {
    const before = path.slice(last, m.index);
    if (before.trim()) reading.literal.push(before);
    last = (m.index ?? 0) + m[0].length;
    if (m[0].startsWith('{#')) continue;
    const problemsBefore = problemCount(reading);
    const body = (m[1] ?? m[2] ?? m[3] ?? '').replace(STRING, "''");
    for (const f of body.matchAll(/\|\s*([A-Za-z_]\w*)(\s*:)?/g)) {
      if (f[2]) add(reading.liquidFilters, f[1]);
      else if (!PAPERLESS_FILTERS.has(f[1])) add(reading.unknownFilters, f[1]);
    }
    // Names the template binds itself: `{% for a, b in … %}`, `{% set year = … %}`.
    const bound = /^\s*(?:for\s+([\w\s,]+?)\s+in\b|set\s+([\w\s,]+?)\s*=)/.exec(m[2] ?? '');
    for (const name of (bound?.[1] ?? bound?.[2])?.split(',') ?? []) boundNames.add(name.trim());
    // Names that start an expression: not after a dot or a filter bar, not a call's keyword argument, not a
    // Jinja test (`is defined`, `is not string`).
    for (const v of body.matchAll(/(?<![\w.|'"])([A-Za-z_]\w*)\b(?!\s*=[^=])/g)) {
      const name = v[1];
      const before = body.slice(0, v.index);
      const afterBar = /\|\s*$/.test(before);
      const isTest = /\bis\s+(?:not\s+)?$/.test(before);
      if (afterBar || isTest || JINJA_WORDS.has(name) || boundNames.has(name)) continue;
      if (!(PAPERLESS_PATH_VARIABLES as readonly string[]).includes(name)) add(reading.unknownVariables, name);
    }
    const part = m[3] !== undefined ? `{{ ${m[3]} }}` : m[0];
    (problemCount(reading) > problemsBefore ? reading.refused : reading.rendered).push(part);
  }
  if (reading.rendered.length + reading.refused.length === 0) return null;
  const after = path.slice(last);
  if (after.trim()) reading.literal.push(after);
  return reading;
}

const problemCount = (r: PathTemplateReading): number =>
  r.unknownVariables.length + r.unknownFilters.length + r.liquidFilters.length;

function add(list: string[], name: string): void {
  if (!list.includes(name)) list.push(name);
}

/** One warning naming what Paperless renders, what it keeps as written, and what it will refuse. */
export function describePathTemplate(path: string, r: PathTemplateReading): string {
  const parts = [
    `the storage path this action creates has the path template ${JSON.stringify(path)}, which Paperless renders itself for each document with its own variables (the rule renders only the name, never path):`,
    r.rendered.length ? `Paperless fills in ${r.rendered.join(', ')}` : 'Paperless fills in nothing',
    r.literal.length
      ? `and keeps ${r.literal.map((l) => JSON.stringify(l)).join(', ')} as written`
      : 'and keeps no other text',
  ];
  const refused: string[] = [];
  if (r.unknownVariables.length)
    refused.push(
      `${r.unknownVariables.map((v) => `"${v}"`).join(', ')} ${r.unknownVariables.length > 1 ? 'are' : 'is'} no Paperless variable (a rule's extracted values do not reach Paperless; its variables are ${PAPERLESS_PATH_VARIABLES.join(', ')})`,
    );
  if (r.unknownFilters.length)
    refused.push(
      `${r.unknownFilters.map((v) => `"${v}"`).join(', ')} ${r.unknownFilters.length > 1 ? 'are' : 'is'} no Paperless filter (it has get_cf_value, datetime, slugify, localize_date and Jinja's own)`,
    );
  if (r.liquidFilters.length)
    refused.push(
      `${r.liquidFilters.map((v) => `"${v}: …"`).join(', ')} is Liquid's filter form; Paperless's Jinja writes ${r.liquidFilters[0]}(…)`,
    );
  const tail = refused.length
    ? `. Paperless cannot render ${r.refused.join(', ')} and will refuse to create this storage path ("Invalid variable detected."): ${refused.join('; ')}. To put a rule's value into the path, write it into a custom field and use {{ custom_fields | get_cf_value('Name') }}.`
    : '.';
  return `${parts.join(' ')}${tail}`;
}
