// Secrets never leave in text the service stores or returns, whatever a dms or notify target echoes back.

const MIN_SECRET = 6;
/** A run this long that is part of a secret is redacted too: a dms may echo a token cut short. */
const MIN_PARTIAL = 8;
const REDACTED = '[redacted]';

/** The service's secrets, read at each use: a settings change takes effect at once. */
type SecretSource = () => ReadonlyArray<string | null | undefined>;

const sources = new Set<SecretSource>();

/** Adds secrets to redact (a function, read at each use); returns the function that removes them again. */
export function registerSecrets(source: SecretSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

function currentSecrets(): string[] {
  const all = new Set<string>();
  for (const source of sources)
    for (const secret of source()) if (secret && secret.length >= MIN_SECRET) all.add(secret);
  return [...all];
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

/** The text with every known secret (and any Authorization value) replaced by `[redacted]`. */
export function redact(text: string): string {
  let out = text.replace(AUTH_VALUE, (whole, scheme: string, gap: string, value: string) =>
    /\d/.test(value) || value.length >= 20 ? `${scheme}${gap}${REDACTED}` : whole,
  );
  const secrets = currentSecrets();
  if (secrets.length === 0) return out;
  for (const secret of secrets) for (const form of formsOf(secret)) out = out.split(form).join(REDACTED);
  return out.replace(RUN, (run) => (secrets.some((secret) => secret.includes(run)) ? REDACTED : run));
}
