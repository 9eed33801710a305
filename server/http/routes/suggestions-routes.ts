import express, { Router } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import type { SuggestionService } from '../../suggest/suggest-service.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** `POST /api/suggestions` (shared tier): learn a rule for a label from the archive, as a background event. */
export function suggestionsRoutes({
  auth,
  suggestions,
}: {
  auth: AuthService;
  suggestions: SuggestionService;
}): Router {
  const router = Router();
  router.post('/suggestions', requireSessionOrToken(auth), express.json({ limit: '64kb' }), (req, res) => {
    const event = suggestions.start(req.body);
    res.status(202).json({ ok: true, queued: true, event_id: event.event_id });
  });
  return router;
}
