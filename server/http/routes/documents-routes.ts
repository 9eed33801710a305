import { Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { Services } from '../../services.js';

/** `GET /api/ui/documents?search=`: the first documents whose title contains the text (the run panel's picker). */
export function documentsRoutes(services: Services): Router {
  const router = Router();
  router.get('/documents', async (req, res) => {
    const search = typeof req.query.search === 'string' ? req.query.search.trim() : '';
    if (search.length < 2 || search.length > 200) throw new BadRequestError('Send ?search= with 2 to 200 characters of a document title.');
    res.json(await services.findDocuments(search));
  });
  return router;
}
