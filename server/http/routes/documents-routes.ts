import { Router } from 'express';
import { BadRequestError } from '../../app-errors.js';
import { positiveIntegerParam, singleParam } from '../../query-params.js';
import type { DocumentService } from '../../runs/documents/document-service.js';

const MAX_TITLE_IDS = 200;

/** The run panel's picker (`?search=`, empty for the latest documents), titles for lists (`/titles?ids=`) and the document panel (`/:id`). */
export function documentsRoutes({ documents }: { documents: DocumentService }): Router {
  const router = Router();
  router.get('/documents', async (req, res) => {
    const search = typeof req.query.search === 'string' ? req.query.search.trim() : '';
    // No text: the latest documents, which the picker offers before anything is typed.
    if (search.length > 200)
      throw new BadRequestError('Send ?search= with at most 200 characters of a document title.');
    res.json(await documents.find(search));
  });
  router.get('/documents/titles', async (req, res) => {
    const raw = singleParam(req.query.ids, 'ids') ?? '';
    if (!/^\d{1,15}(,\d{1,15})*$/.test(raw))
      throw new BadRequestError('Send ?ids= as document ids separated by commas, e.g. ?ids=3,7.');
    const ids = raw.split(',').map(Number);
    if (ids.length > MAX_TITLE_IDS)
      throw new BadRequestError(`Ask for at most ${MAX_TITLE_IDS} titles at once; got ${ids.length}.`);
    res.json({ titles: await documents.titles(ids) });
  });
  router.get('/documents/:id', async (req, res) => {
    const id = positiveIntegerParam(req.params.id, 'id', 'a document id (a positive whole number)');
    res.json(await documents.view(id!));
  });
  return router;
}
