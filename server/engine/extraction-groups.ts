/**
 * `groups:` — one regex, several named groups, several typed values (`Order (?<order>\d+) Ref (?<ref>\S+)`),
 * instead of the same pattern written once per value. The first pattern that matches supplies all groups.
 */
import type { RuleDocument } from './model.js';
import {
  parseTyped,
  sourceText,
  type CompiledExtraction,
  type ExtractedValue,
  type TypedValue,
  type ValueSpec,
} from './extraction.js';
import { MAX_MATCHES } from './regex.js';

export interface GroupValue {
  name: string;
  /** Undefined when the group found nothing usable and has no default. */
  value: ExtractedValue | undefined;
  detail: string;
  required: boolean;
}

export interface GroupOutcome {
  /** Which pattern matched, or why none did. */
  detail: string;
  values: GroupValue[];
}

const show = (raw: string): string => JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);

function typed(raw: string | undefined, spec: ValueSpec): TypedValue {
  return raw === undefined ? null : parseTyped(raw, spec.type, spec.format, spec.currency, spec.locale);
}

function orDefault(name: string, spec: ValueSpec & { name: string }, why: string): GroupValue {
  if (spec.default !== undefined)
    return {
      name,
      value: spec.default,
      detail: `${why}; using the default ${JSON.stringify(spec.default)}`,
      required: spec.required,
    };
  return { name, value: undefined, detail: why, required: spec.required };
}

export function runGroupExtraction(e: CompiledExtraction, doc: RuleDocument): GroupOutcome {
  const text = sourceText(doc, e.from);
  for (const re of e.regexes) {
    const matches = re.groupMatches(text, e.pick, MAX_MATCHES);
    if (matches.length === 0) continue;
    const values = e.groups.map((g): GroupValue => {
      const raws = matches.map((m) => m[g.name]);
      const parsed = raws.map((r) => typed(r, g)).filter((v): v is Exclude<TypedValue, null> => v !== null);
      const seen = raws
        .filter((r): r is string => r !== undefined)
        .map(show)
        .join(', ');
      if (parsed.length === 0) {
        return orDefault(
          g.name,
          g,
          seen
            ? `${seen} is not a valid ${g.type}${g.format ? ` in format ${g.format}` : ''}${g.locale ? ` (${g.locale})` : ''}`
            : 'the group took no part in the match',
        );
      }
      // `pick: all` keeps one entry per match, so word[i] and day[i] belong to the same match: a group that
      // matched an empty string is "" there (a string) and one that took no part or did not parse is nil.
      const value =
        e.pick === 'all'
          ? raws.map((r) => (r !== undefined && g.type === 'string' ? r.trim() : typed(r, g)))
          : parsed[0];
      return { name: g.name, value, detail: `${seen} → ${JSON.stringify(value)}`, required: g.required };
    });
    return { detail: `/${re.source}/ matched`, values };
  }
  const why = `no pattern matched in ${e.from} (${text.length.toLocaleString('en-US')} characters)`;
  return { detail: why, values: e.groups.map((g) => orDefault(g.name, g, 'no match')) };
}
