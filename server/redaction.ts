// Secrets never leave in text the service stores or returns, whatever a dms or notify target echoes back.
import type { Config } from './config.js';
import type { NotifyTarget } from './notify-targets.js';

const MIN_SECRET = 6;
/** A run this long that is part of a secret is redacted too: a dms may echo a token cut short. */
const MIN_PARTIAL = 8;
const REDACTED = '[redacted]';

/** Secrets to redact, read at each use: a settings change takes effect at once. */
export type Secrets = () => ReadonlyArray<string | null | undefined>;

const CREDENTIAL_NAME = /auth|token|key|secret|pass|cookie|session|signature/i;

/** What of a notify target is a credential: URL passwords, and header and query values named like one (Authorization, …). */
export function targetCredentials(target: NotifyTarget): string[] {
  const url = new URL(target.kind === 'http' ? target.url : target.smtp);
  const named = (entries: Iterable<[string, string]>) =>
    // `Bearer abc…`: the value alone too, as a target may echo it.
    [...entries].filter(([name]) => CREDENTIAL_NAME.test(name)).flatMap(([, v]) => [v, v.replace(/^\S+\s+/, '')]);
  const fromUrl = [decodeURIComponent(url.password), ...named(url.searchParams.entries())];
  return target.kind === 'email' ? fromUrl : [...fromUrl, ...named(Object.entries(target.headers))];
}

/** One service's secrets as its settings hold them now: tokens, the admin password, notify targets' credentials. */
export function serviceSecrets(
  config: Pick<Config, 'apiToken' | 'webhookToken' | 'adminPassword' | 'dmsToken' | 'notifyTargets'>,
): Secrets {
  return () => [
    config.apiToken,
    config.webhookToken,
    config.adminPassword,
    config.dmsToken,
    ...Object.values(config.notifyTargets ?? {}).flatMap(targetCredentials),
  ];
}

/** The forms a secret takes in echoed text: as sent, URL-encoded, JSON-escaped, base64. */
function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [
    secret,
    encodeURIComponent(secret),
    json,
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
  ];
}

// An Authorization value: `Token 0123abcd…`, `Bearer …`, `Basic …`, spelled out or URL-encoded. A value needs a
// digit or some length, so "Token header" or "Bearer realm" stay readable.
const AUTH_VALUE = /\b(Token|Bearer|Basic)(\s+|%20|\+)([A-Za-z0-9._~+/=-]{8,})/gi;
const RUN = new RegExp(`[A-Za-z0-9._~+/=-]{${MIN_PARTIAL},}`, 'g');

/** The text with every given secret (and any Authorization value) replaced by `[redacted]`. */
export function redact(text: string, given: ReadonlyArray<string | null | undefined> = []): string {
  let out = text.replace(AUTH_VALUE, (whole, scheme: string, gap: string, value: string) =>
    /\d/.test(value) || value.length >= 20 ? `${scheme}${gap}${REDACTED}` : whole,
  );
  const secrets = [...new Set(given.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET))];
  if (secrets.length === 0) return out;
  for (const secret of secrets) for (const form of formsOf(secret)) out = out.split(form).join(REDACTED);
  return out.replace(RUN, (run) => (secrets.some((secret) => secret.includes(run)) ? REDACTED : run));
}
