import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DmsError, DmsNotFoundError, DmsQueryError, DmsValueError } from '../../dms/dms-errors.js';
import { AppError, BadRequestError, NotFoundError, UpstreamError, ValidationError } from '../../app-errors.js';
import type { Logger } from '../../log.js';
import { redact, type Secrets } from '../../redaction.js';

/** Unknown API paths answer JSON, never an HTML page. */
export function apiNotFound(): RequestHandler {
  return (req, _res, next) => next(new NotFoundError(`No such endpoint: ${req.method} ${req.baseUrl}${req.path}`));
}

interface BodyParserError {
  status?: number;
  type?: string;
}

const BODY_ERRORS: Record<string, string> = {
  'entity.too.large': 'The request body is too large.',
  'entity.parse.failed': 'The request body is not valid JSON.',
  'encoding.unsupported': 'The request body uses an unsupported encoding.',
  'charset.unsupported': 'The request body uses an unsupported charset.',
  'request.aborted': 'The request was aborted.',
};

/** The dms layer's errors get their HTTP status here, at the edge: a missing object 404, a bad value or query 400, else 502. */
export function httpErrorOf(err: unknown): unknown {
  if (err instanceof DmsNotFoundError) return new NotFoundError(err.message);
  if (err instanceof DmsValueError || err instanceof DmsQueryError) return new BadRequestError(err.message);
  if (err instanceof DmsError) return new UpstreamError(err.message);
  return err;
}

/**
 * The one error handler, registered last: every error becomes `{ok:false, error}` with its status. The log line of
 * an unknown error has the service's `secrets` redacted.
 */
export function errorHandler(logger: Logger, secrets: Secrets = () => []): ErrorRequestHandler {
  return (thrown: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A body not read to the end (refused early, or too large) is not drained for keep-alive: the connection closes.
    if (!req.complete) res.setHeader('Connection', 'close');
    const err = httpErrorOf(thrown);
    if (err instanceof AppError) {
      for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      const body: Record<string, unknown> = { ok: false, error: err.message };
      if (err instanceof ValidationError && err.line !== undefined) {
        body.line = err.line;
        body.column = err.column;
        if (err.problems.length > 0) body.problems = err.problems;
      }
      res.status(err.status).json(body);
      return;
    }
    const parserError = err as BodyParserError;
    if (parserError && typeof parserError.type === 'string' && parserError.type in BODY_ERRORS) {
      res.status(parserError.status ?? 400).json({ ok: false, error: BODY_ERRORS[parserError.type] });
      return;
    }
    logger.error(
      redact(
        `${req.method} ${req.originalUrl.split('?')[0]} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        secrets(),
      ),
    );
    res.status(500).json({ ok: false, error: 'Internal error; the service log has the details.' });
  };
}
