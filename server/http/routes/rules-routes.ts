import express, { Router, type Request, type RequestHandler } from 'express';
import { BadRequestError, PayloadTooLargeError } from '../../app-errors.js';
import { MAX_RULE_FILE_BYTES } from '../../rules/validate-file.js';
import { booleanParam, positiveIntegerParam, singleParam } from '../../query-params.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { RuleStore } from '../../rules/rules.js';
import type { RunService } from '../../runs/manual/run-service.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** Raw YAML bodies, any content type, at most 512 KB; a larger body is 413 with a message that says so. */
function rawYaml(): RequestHandler {
  const parse = express.text({ type: () => true, limit: MAX_RULE_FILE_BYTES });
  return (req, res, next) =>
    // Express builds req from IncomingMessage by swapping its prototype, which this rule cannot see.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    parse(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        return next(
          new PayloadTooLargeError(
            `A rule file may be at most ${MAX_RULE_FILE_BYTES / 1024} KB; split it into several files.`,
          ),
        );
      }
      next(err);
    });
}

const bodyText = (req: Request): string => (typeof req.body === 'string' ? req.body : '');
const isDraft = (req: Request): boolean => booleanParam(req.query.draft, 'draft', false);
const fileId = (req: Request): string => String(req.params.id);

/** `/api/ui/rules*` (Express 5 passes rejected promises to the error handler): the rule files store (list, create, read, save, drafts, delete, vars preview). */
export function rulesRoutes({ rules, runs }: { rules: RuleStore; runs: RunService }): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  router.get('/rules', (_req, res) => {
    res.json(rules.listFiles());
  });

  router.post('/rules', json, async (req, res) => {
    const filename = (req.body as { filename?: unknown } | undefined)?.filename;
    if (typeof filename !== 'string')
      throw new BadRequestError('Send JSON {"filename": "invoices.yml"} (or "<package>/<name>.yml").');
    res.json({ ok: true, ...(await rules.createFile(filename)) });
  });

  router.get('/rules/:id', async (req, res) => {
    res.json(await rules.readFile(fileId(req), { draft: isDraft(req) }));
  });

  router.put('/rules/:id', rawYaml(), async (req, res) => {
    if (isDraft(req)) res.json({ ok: true, draft: true, ...(await rules.saveDraft(fileId(req), bodyText(req))) });
    else res.json({ ok: true, ...(await rules.saveFile(fileId(req), bodyText(req))) });
  });

  router.delete('/rules/:id', async (req, res) => {
    if (isDraft(req)) await rules.deleteDraft(fileId(req));
    else await rules.deleteFile(fileId(req));
    res.json({ ok: true });
  });

  // The editor's text, not the stored file: every validation stage and each test's outcome at its line.
  router.post('/rules/:id/check', rawYaml(), async (req, res) => {
    res.json({ ok: true, ...(await rules.checkText(fileId(req), bodyText(req))) });
  });

  // A dry run of the editor's text (unsaved or draft) against one document; nothing is published or written.
  router.post('/rules/:id/dry-run', rawYaml(), async (req, res) => {
    const document = positiveIntegerParam(
      req.query.document,
      'document',
      'a positive whole number (a dms document id)',
    );
    if (document === undefined)
      throw new BadRequestError('Give "document": the id of the dms document to try the rules on.');
    const ruleId = singleParam(req.query.rule_id, 'rule_id') || null;
    const { traces, title } = await runs.runText({
      fileId: fileId(req),
      content: bodyText(req),
      document,
      ruleId,
    });
    res.json({ ok: true, queued: false, document, document_title: title, rule_id: ruleId, dry_run: true, traces });
  });

  router.post('/rules/:id/preview', rawYaml(), async (req, res) => {
    res.json({ ok: true, result: await rules.previewVars(fileId(req), bodyText(req)) });
  });

  return router;
}

/** `POST /api/reload` (shared tier: session or bearer token): reloads every rule file from disk now. */
export function reloadRoutes({ auth, rules }: { auth: AuthService; rules: RuleStore }): Router {
  const router = Router();
  router.post('/reload', requireSessionOrToken(auth), async (_req, res) => {
    res.json({ ok: true, ...(await rules.reload()) });
  });
  return router;
}
