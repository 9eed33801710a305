import { BadRequestError } from '../errors.js';

/** The parameters of `POST /api/run`: a document, a rule, or both (spec: "Dispatch"). */
export type RunQuery = { document: number; ruleId: string | null; dryRun: boolean } | { document: null; ruleId: string; dryRun: boolean };

function single(raw: unknown, name: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new BadRequestError(`Give "${name}" once, as a plain value.`);
  return raw;
}

const TRUE = ['true', '1'];
const FALSE = ['false', '0'];

/** Parses and checks the query string; every malformed value is a 400 that names the parameter. */
export function parseRunQuery(query: Record<string, unknown>): RunQuery {
  const documentRaw = single(query.document, 'document');
  const ruleId = single(query.rule_id, 'rule_id');
  const dryRunRaw = single(query.dry_run, 'dry_run');

  let document: number | null = null;
  if (documentRaw !== undefined) {
    if (!/^\d{1,15}$/.test(documentRaw) || Number(documentRaw) < 1) {
      throw new BadRequestError(`"document" must be a positive whole number (a dms document id), got "${documentRaw}".`);
    }
    document = Number(documentRaw);
  }
  if (ruleId !== undefined && ruleId.trim() === '') throw new BadRequestError('"rule_id" must not be empty.');

  let dryRun = true;
  if (dryRunRaw !== undefined) {
    const v = dryRunRaw.toLowerCase();
    if (TRUE.includes(v)) dryRun = true;
    else if (FALSE.includes(v)) dryRun = false;
    else throw new BadRequestError(`"dry_run" must be true, false, 1 or 0, got "${dryRunRaw}".`);
  }

  if (document === null) {
    if (ruleId === undefined) throw new BadRequestError('Give "document" (run all rules against that document), "rule_id" (run that rule against all documents), or both.');
    return { document: null, ruleId, dryRun };
  }
  return { document, ruleId: ruleId ?? null, dryRun };
}
