import nodemailer from 'nodemailer';
import type { NotifyTarget } from '../../notify-targets.js';
import { errorMessage } from '../../error-message.js';
import { redact, targetCredentials } from '../../redaction.js';

export interface NotifyMessage {
  title: string;
  message: string;
  /** HTTP: the request body a rule rendered, instead of the target format's own. */
  body?: string;
  /** HTTP: headers a rule rendered (the rule checked at save that none is one the service sets). */
  headers?: Record<string, string>;
}

/** A file attached to an e-mail, downloaded for this send only. */
export interface NotifyAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface SendOptions {
  /** Sent as the `Idempotency-Key` header (and in the e-mail's Message-ID) so a receiver can drop a repeat. */
  idempotencyKey?: string;
  attachment?: NotifyAttachment;
}

export type NotifyTargetKind = NotifyTarget['kind'];

export interface Notifier {
  /** The targets rules may name in `notify: {to: …}`, with their kind (http or email) for the save checks. */
  kinds(): Record<string, NotifyTargetKind>;
  /** The largest attachment an e-mail target takes, in bytes; null for an unknown or HTTP target. */
  attachmentLimit(target: string): number | null;
  /** Sends one message; throws a NotifyError naming the target when it is unknown or refuses. */
  send(target: string, msg: NotifyMessage, options?: SendOptions): Promise<void>;
}

/** A send that did not arrive; `retryable` when trying again later may work (down, busy, 5xx, 429). */
export class NotifyError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The target's part alone, e.g. `answered HTTP 503` or `no connection: ECONNREFUSED`. */
    readonly reason: string = message,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The target's answer as a person reads it: the HTTP status, or why no connection was made. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 10_000;

/** Why fetch threw, e.g. `no connection: ECONNREFUSED`; a network failure is worth another try. */
function networkFailure(err: unknown): Refusal {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if ((err as Error).name === 'TimeoutError') return new Refusal(`no answer within ${TIMEOUT_MS / 1000} s`, true);
  if (cause?.code === 'ECONNREFUSED') return new Refusal('no connection: ECONNREFUSED', true);
  return new Refusal(cause?.message ?? errorMessage(err), true);
}

async function postHttp(
  target: Extract<NotifyTarget, { kind: 'http' }>,
  msg: NotifyMessage,
  options: SendOptions,
): Promise<void> {
  const text = target.format === 'text';
  // Case-insensitive: a rule's header replaces the target's of the same name; the key is always the service's.
  const headers = new Headers({ 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json' });
  for (const [name, value] of Object.entries(target.headers)) headers.set(name, value);
  for (const [name, value] of Object.entries(msg.headers ?? {})) headers.set(name, value);
  if (options.idempotencyKey) headers.set('Idempotency-Key', options.idempotencyKey);
  // ntfy reads the title from this header; header values must be Latin-1, so other characters are dropped.
  if (text && msg.title && !headers.has('title')) headers.set('Title', msg.title.replace(/[^\x20-\x7e\xa0-\xff]/g, ''));
  const body = msg.body ?? (text ? msg.message : JSON.stringify({ title: msg.title, message: msg.message }));
  if (msg.body !== undefined && /^application\/(.+\+)?json\b/i.test(headers.get('content-type') ?? ''))
    checkJson(msg.body);
  let res: Response;
  try {
    res = await fetch(target.url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      // Not followed: a redirect could lead the message (and the target's credentials) anywhere.
      redirect: 'manual',
    });
  } catch (err) {
    throw networkFailure(err);
  }
  await res.body?.cancel();
  if (res.status >= 300 && res.status < 400) {
    // Permanent: the same URL redirects again next time; retrying would only delay the message for hours.
    throw new Refusal(
      `answered HTTP ${res.status} (a redirect${res.headers.get('location') ? ` to ${res.headers.get('location')}` : ''}): redirects are not followed; put the final URL in the notify target`,
      false,
    );
  }
  // Busy or down (429, 408, 5xx) may pass; any other refusal (400, 401, 404…) would be refused again.
  if (!res.ok)
    throw new Refusal(`answered HTTP ${res.status}`, res.status === 429 || res.status === 408 || res.status >= 500);
}

/** A rule's body for a JSON target must be JSON: a title with a quote in it would otherwise post garbage. */
function checkJson(body: string): void {
  try {
    JSON.parse(body);
  } catch (err) {
    throw new Refusal(
      `the notify body is not JSON (${(err as Error).message}); the target sends application/json: write values with | json, e.g. {"title": {{ doc.title | json }}}`,
      false,
    );
  }
}

async function sendMail(
  target: Extract<NotifyTarget, { kind: 'email' }>,
  msg: NotifyMessage,
  options: SendOptions,
): Promise<void> {
  const transport = nodemailer.createTransport(target.smtp, {
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  try {
    await transport.sendMail({
      from: target.from,
      to: target.to,
      subject: msg.title || msg.message.split('\n')[0].slice(0, 120),
      text: msg.message,
      ...(options.attachment
        ? {
            attachments: [
              {
                filename: options.attachment.filename,
                contentType: options.attachment.contentType,
                content: options.attachment.content,
              },
            ],
          }
        : {}),
      ...(options.idempotencyKey
        ? { messageId: `<${options.idempotencyKey}@dms-rules>`, headers: { 'Idempotency-Key': options.idempotencyKey } }
        : {}),
    });
  } catch (err) {
    // SMTP 5xx is a permanent refusal; 4xx and connection failures are temporary.
    const code = (err as { responseCode?: number }).responseCode;
    throw new Refusal(errorMessage(err), !(typeof code === 'number' && code >= 500));
  } finally {
    transport.close();
  }
}

/** Sends `notify` messages to the targets of the settings, read at each send so a settings change applies at once. */
export function createNotifier(targets: () => Record<string, NotifyTarget> | null): Notifier {
  return {
    kinds: () => Object.fromEntries(Object.entries(targets() ?? {}).map(([name, t]) => [name, t.kind])),
    attachmentLimit(name) {
      const target = (targets() ?? {})[name];
      return target?.kind === 'email' ? target.attachmentMaxBytes : null;
    },
    async send(name, msg, options = {}) {
      const target = (targets() ?? {})[name];
      if (!target) throw new NotifyError(`there is no notify target "${name}" in the settings (notify_targets)`, false);
      // The settings may have changed since the rule was saved: say so rather than drop part of the message.
      const misfit =
        target.kind === 'email' && (msg.body !== undefined || msg.headers)
          ? 'it is an e-mail target; body and headers are for HTTP targets'
          : target.kind === 'http' && options.attachment
            ? 'it is an HTTP target; attach is for e-mail targets'
            : null;
      if (misfit) throw new NotifyError(`notify target "${name}" cannot take this message: ${misfit}`, false);
      try {
        if (target.kind === 'http') await postHttp(target, msg, options);
        else await sendMail(target, msg, options);
      } catch (err) {
        const retryable = err instanceof Refusal ? err.retryable : true;
        // An SMTP server or an HTTP target may quote back the credentials it was sent.
        const reason = redact(errorMessage(err), targetCredentials(target));
        throw new NotifyError(`notify target "${name}" failed: ${reason}`, retryable, reason, { cause: err });
      }
    },
  };
}
