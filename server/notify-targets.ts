import YAML from 'yaml';
import { errorMessage } from './error-message.js';

/** A notify target from the settings: an HTTP endpoint (ntfy, Gotify, Home Assistant…) or e-mail over SMTP. */
export type NotifyTarget = HttpTarget | EmailTarget;

export interface HttpTarget {
  kind: 'http';
  url: string;
  /** `json` posts `{"title","message"}` (Gotify, Home Assistant); `text` posts the message with a `Title` header (ntfy). */
  format: 'json' | 'text';
  headers: Record<string, string>;
}

export interface EmailTarget {
  kind: 'email';
  /** `smtp://user:password@host:587` or `smtps://…:465`. */
  smtp: string;
  from: string;
  to: string[];
  /** The largest document a rule's `attach` may send through this target, in bytes (`attachment_max_mb`). */
  attachmentMaxBytes: number;
}

/** Most mail servers refuse messages over 10 to 25 MB, and base64 makes an attachment a third larger. */
export const DEFAULT_ATTACHMENT_MAX_MB = 10;

/** A header or URL query parameter named like this holds a credential (`Authorization`, Gotify's `?token=`). */
export const CREDENTIAL_NAME = /auth|token|key|secret|pass|cookie|session|signature/i;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function url(raw: unknown, protocols: string[], where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(String(raw));
  } catch {
    throw new Error(`${where} must be a URL such as ${protocols[0]}//host/…, got ${JSON.stringify(raw)}`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`${where} must start with ${protocols.join(' or ')}//`);
  return parsed.toString();
}

const address = (v: unknown, where: string): string => {
  if (typeof v !== 'string' || !/^[^\s@<>]+@[^\s@<>]+$/.test(v))
    throw new Error(`${where} must be an e-mail address, got ${JSON.stringify(v)}`);
  return v;
};

/**
 * Parses SVC_NOTIFY_TARGETS (YAML or JSON: target name → settings). Throws a message naming the target and key.
 * Example: `{ phone: { url: "https://ntfy.sh/topic", format: text }, office: { smtp: "smtp://mail.lan:587", from: a@b.c, to: [c@d.e] } }`.
 */
export function parseNotifyTargets(raw: string): Record<string, NotifyTarget> {
  let data: unknown;
  try {
    data = YAML.parse(raw);
  } catch (err) {
    throw new Error(`is not valid YAML or JSON: ${errorMessage(err)}`, { cause: err });
  }
  if (!isObject(data)) throw new Error('must be a mapping of target name → { url: … } or { smtp: …, from: …, to: … }');
  const targets: Record<string, NotifyTarget> = {};
  for (const [name, t] of Object.entries(data)) {
    const at = `target "${name}"`;
    if (!NAME.test(name)) throw new Error(`${at}: names are letters, digits, - and _`);
    if (!isObject(t)) throw new Error(`${at} must be a mapping with url (HTTP) or smtp (e-mail)`);
    if ('url' in t === 'smtp' in t) throw new Error(`${at} needs exactly one of url (HTTP) and smtp (e-mail)`);
    if ('url' in t) {
      const unknown = Object.keys(t).filter((k) => !['url', 'format', 'headers'].includes(k));
      if (unknown.length)
        throw new Error(`${at}: unknown key "${unknown[0]}" (HTTP targets take url, format, headers)`);
      const format = t.format ?? 'json';
      if (format !== 'json' && format !== 'text') throw new Error(`${at}: format is json or text`);
      const headers = t.headers ?? {};
      if (!isObject(headers) || Object.values(headers).some((v) => typeof v !== 'string'))
        throw new Error(`${at}: headers is a mapping of header name → text`);
      targets[name] = {
        kind: 'http',
        url: url(t.url, ['http:', 'https:'], `${at}: url`),
        format,
        headers: headers as Record<string, string>,
      };
    } else {
      const unknown = Object.keys(t).filter((k) => !['smtp', 'from', 'to', 'attachment_max_mb'].includes(k));
      if (unknown.length)
        throw new Error(`${at}: unknown key "${unknown[0]}" (e-mail targets take smtp, from, to, attachment_max_mb)`);
      const maxMb = t.attachment_max_mb ?? DEFAULT_ATTACHMENT_MAX_MB;
      if (typeof maxMb !== 'number' || !(maxMb > 0) || maxMb > 1000)
        throw new Error(`${at}: attachment_max_mb is a number of megabytes above 0 and at most 1000`);
      const to = Array.isArray(t.to) ? t.to : [t.to];
      if (to.length === 0) throw new Error(`${at}: to needs at least one address`);
      targets[name] = {
        kind: 'email',
        smtp: url(t.smtp, ['smtp:', 'smtps:'], `${at}: smtp`),
        from: address(t.from, `${at}: from`),
        to: to.map((a, i) => address(a, `${at}: to[${i}]`)),
        attachmentMaxBytes: Math.round(maxMb * 1_000_000),
      };
    }
  }
  return targets;
}
