import express, { Router } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import { BadRequestError } from '../../app-errors.js';
import { positiveIntegerParam, singleParam } from '../../query-params.js';
import type { DocumentService } from '../../runs/documents/document-service.js';
import type { SuggestionService } from '../../suggest/suggest-service.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/**
 * `POST /api/suggestions` (shared tier): learn a rule for a label from the archive, as a background event.
 * `GET /api/suggestions/{event}/documents/{id}?rule_id=`: the document panel's view of a document with the
 * matches of that suggested rule (not of the loaded rules), for the documents a suggestion lists.
 */
export function suggestionsRoutes({
  auth,
  suggestions,
  documents,
}: {
  auth: AuthService;
  suggestions: SuggestionService;
  documents: DocumentService;
}): Router {
  const router = Router();
  router.post('/suggestions', requireSessionOrToken(auth), express.json({ limit: '64kb' }), (req, res) => {
    const event = suggestions.start(req.body);
    res.status(202).json({ ok: true, queued: true, event_id: event.event_id });
  });
  router.get('/suggestions/:event/documents/:id', requireSessionOrToken(auth), async (req, res) => {
    const eventId = positiveIntegerParam(req.params.event, 'event', 'a suggestion event id (a positive whole number)');
    const id = positiveIntegerParam(req.params.id, 'id', 'a document id (a positive whole number)');
    const ruleId = singleParam(req.query.rule_id, 'rule_id');
    if (!ruleId) throw new BadRequestError("Send ?rule_id= with the id of one of the suggestion's candidates.");
    const view = await documents.view(id!);
    res.json({ ...view, matches: suggestions.candidateMatches(eventId!, ruleId, view.document.content) });
  });
  return router;
}
