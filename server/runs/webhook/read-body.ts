import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { BadRequestError, PayloadTooLargeError } from '../../app-errors.js';
import { fieldsFromText } from './parse-payload.js';
import { errorMessage } from '../../error-message.js';

export interface BodyLimits {
  /** Largest non-multipart body. Paperless params never carry document content, so this is generous. */
  maxTextBytes: number;
  /** Largest single multipart field (the file part is drained, not kept). */
  maxFieldBytes: number;
  /** Largest multipart body in all, the file of "Include document" included (it is drained, but read). */
  maxMultipartBytes: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  maxTextBytes: 256 * 1024,
  maxFieldBytes: 64 * 1024,
  maxMultipartBytes: 128 * 1024 * 1024,
};

/**
 * Reads a webhook request body into fields, whatever form Paperless chose (§7.3): JSON (possibly a JSON
 * string literal), form-urlencoded, raw text without a Content-Type, or multipart with an ignored file.
 */
export async function readWebhookFields(
  req: IncomingMessage,
  limits: BodyLimits = DEFAULT_BODY_LIMITS,
): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return readMultipart(req, limits);
  const text = await readText(req, limits.maxTextBytes);
  if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  return fieldsFromText(text);
}

function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        reject(
          new PayloadTooLargeError(
            `The webhook body is larger than ${Math.round(maxBytes / 1024)} KB; send only doc_id (and event).`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => !failed && resolve(Buffer.concat(chunks).toString('utf8')));
    req.on(
      'error',
      (err) => !failed && reject(new BadRequestError(`The webhook body could not be read: ${err.message}`)),
    );
  });
}

function readMultipart(req: IncomingMessage, limits: BodyLimits): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fields: 100, fieldSize: limits.maxFieldBytes, files: 5, parts: 110 },
      });
    } catch (err) {
      reject(new BadRequestError(`The multipart webhook body is malformed: ${errorMessage(err)}`));
      return;
    }
    let size = 0;
    const countBytes = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limits.maxMultipartBytes) return;
      // Not read further: the error handler answers 413 and closes the connection instead of draining it.
      req.off('data', countBytes);
      req.unpipe(parser);
      reject(
        new PayloadTooLargeError(
          `The multipart webhook body is larger than ${Math.round(limits.maxMultipartBytes / (1024 * 1024))} MB. Turn off "Include document" in the Paperless workflow's webhook action: the service reads the document from Paperless.`,
        ),
      );
    };
    req.on('data', countBytes);
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    // include_document attaches the original file; the rules read the document from the dms, so drain it.
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('close', () => resolve(fields));
    parser.on('error', (err: Error) =>
      reject(new BadRequestError(`The multipart webhook body is malformed: ${err.message}`)),
    );
    req.pipe(parser);
  });
}
