import { BadRequestError } from '../../app-errors.js';
import { booleanParam, positiveIntegerParam, singleParam } from '../../query-params.js';

/** The parameters of `POST /api/run`: a document, a rule, or both (spec: "Dispatch"). */
export type RunQuery =
  { document: number; ruleId: string | null; dryRun: boolean } | { document: null; ruleId: string; dryRun: boolean };

/** Parses and checks the query string; every malformed value is a 400 that names the parameter. */
export function parseRunQuery(query: Record<string, unknown>): RunQuery {
  const document =
    positiveIntegerParam(query.document, 'document', 'a positive whole number (a dms document id)') ?? null;
  const ruleId = singleParam(query.rule_id, 'rule_id');
  if (ruleId !== undefined && ruleId.trim() === '') throw new BadRequestError('"rule_id" must not be empty.');
  const dryRun = booleanParam(query.dry_run, 'dry_run', true);

  if (document === null) {
    if (ruleId === undefined)
      throw new BadRequestError(
        'Give "document" (run all rules against that document), "rule_id" (run that rule against all documents), or both.',
      );
    return { document: null, ruleId, dryRun };
  }
  return { document, ruleId: ruleId ?? null, dryRun };
}
