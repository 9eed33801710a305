import type { CreatableKind } from '../../dms/types.js';

// Names the service creates (`create_missing: true`) are rendered from rule templates, so their text can come
// from a document. Paperless renders a storage path's `path` as a Jinja template (and the service's default path
// is `<name>/{{ title }}`), so a document could write `{{ document.owner.password }}` or `../../x` into a template
// Paperless renders and a path it files under. These checks refuse such a creation.

const LABEL: Record<CreatableKind, string> = {
  tags: 'Tag',
  correspondents: 'Correspondent',
  document_types: 'Document type',
  storage_paths: 'Storage path',
};

const HAZARDS: Array<[RegExp, string]> = [
  [/\{\{|\{%|\{#/, 'template syntax ({{, {% or {#) that Paperless would render'],
  [/(^|[/\\])\s*\.\.\s*([/\\]|$)/, 'a ".." path segment'],
  [/^\s*\//, 'a leading "/"'],
  [/\\/, 'a backslash'],
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  [/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/, 'a control character'],
];
// Paperless still turns the old `{title}` placeholder format into a template, and a storage path's name becomes
// part of its default path: braces are refused there too.
const OLD_PLACEHOLDER: [RegExp, string] = [/\{\w*\}/, 'a {placeholder} that Paperless would turn into a template'];

function hazardIn(text: string, kind: CreatableKind): string | null {
  const checks = kind === 'storage_paths' ? [...HAZARDS, OLD_PLACEHOLDER] : HAZARDS;
  return checks.find(([pattern]) => pattern.test(text))?.[1] ?? null;
}

/**
 * Why the service must not create this name (and storage path `path`), or null when it may. The path comes
 * from the rule itself (its author's Paperless template, so template syntax is allowed there) but may still not
 * climb out of Paperless's media folder.
 */
export function unsafeCreation(kind: CreatableKind, name: string, path?: string): string | null {
  const hazard = hazardIn(name, kind);
  if (hazard)
    return `${LABEL[kind]} ${JSON.stringify(name)} was not created: it holds ${hazard}. Names the service creates come from rule templates and may carry document text; change the rule or create the name in the dms.`;
  const pathHazard = path === undefined ? null : HAZARDS.slice(1).find(([pattern]) => pattern.test(path))?.[1];
  if (pathHazard)
    return `${LABEL[kind]} ${JSON.stringify(name)} was not created: its path ${JSON.stringify(path)} holds ${pathHazard}.`;
  return null;
}

export interface CreationLimits {
  /** Names one document's run may create. */
  perRun: number;
  /** Names one job or catch-up may create; webhook and manual runs share one such budget per hour. */
  perJob: number;
}

/** Admits (or refuses, with a message for the trace) each creation one document's run is about to make. */
export interface CreationGate {
  admit(kind: CreatableKind, name: string): string | null;
}

export interface CreationLimiter {
  /** The gate for one document's run; `eventId` of a job or catch-up shares that event's budget. */
  forRun(source: string, eventId: number | null): CreationGate;
}

const HOUR_MS = 3_600_000;
const EVENTS_KEPT = 50;

/** Caps `create_missing` creations per run, per job (or catch-up) and per hour of single runs. */
export function createCreationLimiter(limits: CreationLimits, now: () => number = Date.now): CreationLimiter {
  const byEvent = new Map<number, Set<string>>();
  let hourly: Array<{ key: string; at: number }> = [];

  const eventBudget = (eventId: number): Set<string> => {
    let budget = byEvent.get(eventId);
    if (!budget) {
      budget = new Set();
      byEvent.set(eventId, budget);
      // Jobs end; their budgets need not outlive the last few.
      if (byEvent.size > EVENTS_KEPT) byEvent.delete(byEvent.keys().next().value as number);
    }
    return budget;
  };

  return {
    forRun(source, eventId) {
      const perEvent = (source === 'job' || source === 'catchup') && eventId !== null ? eventBudget(eventId) : null;
      const run = new Set<string>();
      return {
        admit(kind, name) {
          const key = `${kind}\u0000${name.trim().toLowerCase()}`;
          const what = `${LABEL[kind]} ${JSON.stringify(name)} was not created`;
          if (!run.has(key) && run.size >= limits.perRun) {
            return `${what}: create_missing is capped at ${limits.perRun} per run (SVC_CREATE_MISSING_MAX_PER_RUN), and this run reached the cap.`;
          }
          if (perEvent) {
            if (!perEvent.has(key) && perEvent.size >= limits.perJob) {
              return `${what}: create_missing is capped at ${limits.perJob} per job (SVC_CREATE_MISSING_MAX_PER_JOB), and this ${source === 'job' ? 'job' : 'catch-up'} reached the cap.`;
            }
            perEvent.add(key);
          } else {
            const at = now();
            hourly = hourly.filter((c) => at - c.at < HOUR_MS);
            if (!hourly.some((c) => c.key === key)) {
              if (hourly.length >= limits.perJob) {
                return `${what}: create_missing is capped at ${limits.perJob} per hour for webhook and manual runs (SVC_CREATE_MISSING_MAX_PER_JOB), and that cap is reached.`;
              }
              hourly.push({ key, at });
            }
          }
          run.add(key);
          return null;
        },
      };
    },
  };
}
