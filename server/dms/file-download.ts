import { BodyTooLargeError, ownBuffer, readBodyBytes, type BodyStream } from './body-text.js';
import { DmsError } from './dms-errors.js';
import type { DmsFile } from './types.js';

/** A download larger than the caller allows: never read further than the limit (DESIGN §6, sizes). */
export class DmsFileTooLargeError extends DmsError {
  constructor(
    request: string,
    readonly limitBytes: number,
    /** What the dms announced (Content-Length), or null when the limit was reached while reading. */
    readonly announcedBytes: number | null,
  ) {
    super(
      announcedBytes === null
        ? `the file is larger than ${formatBytes(limitBytes)}, the limit for this download`
        : `the file is ${formatBytes(announcedBytes)}, over the limit of ${formatBytes(limitBytes)} for this download`,
      request,
      null,
    );
  }
}

/** `2.4 MB`, `812 KB`, `90 bytes`: sizes as a person reads them (1 MB = 1,000,000 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${Number((bytes / 1_000_000).toFixed(1))} MB`;
  if (bytes >= 1_000) return `${Number((bytes / 1_000).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/** Reads a response body up to `maxBytes`; one byte more stops the read (the rest is not downloaded). */
export async function readCapped(
  body: BodyStream,
  maxBytes: number,
  announced: number | null,
  request: string,
): Promise<Buffer> {
  const bytes = await readBodyBytes(body, maxBytes, announced).catch((err: unknown) => {
    if (!(err instanceof BodyTooLargeError)) throw err;
    throw new DmsFileTooLargeError(request, maxBytes, err.announced ? err.seen : null);
  });
  return ownBuffer(bytes);
}

/** The file name of a Content-Disposition header: RFC 5987 `filename*` first (Paperless sends both), else `filename`. */
export function fileNameOf(disposition: string | undefined): string | null {
  if (!disposition) return null;
  const extended = /filename\*\s*=\s*(?:utf-8|UTF-8)''([^;]+)/.exec(disposition);
  if (extended) {
    try {
      return cleanName(decodeURIComponent(extended[1].trim()));
    } catch {
      // A malformed escape: fall back to the plain name.
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;\s]+)/.exec(disposition);
  return plain ? cleanName(plain[1] ?? plain[2]) : null;
}

/** No path parts or control characters from the dms reach an e-mail's attachment name. */
function cleanName(name: string): string | null {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[\x00-\x1f\x7f]/g, '').trim();
  return base === '' || base === '.' || base === '..' ? null : base.slice(0, 200);
}

/** The answer to a download as the client returns it. */
export function toDmsFile(id: number, headers: Record<string, string>, content: Buffer): DmsFile {
  return {
    filename: fileNameOf(headers['content-disposition']) ?? `document-${id}`,
    contentType: headers['content-type'] || 'application/octet-stream',
    content,
  };
}
