// Which Paperless-ngx releases the client speaks to, and how it picks the REST API version (docs/dms.md).

/** The Paperless-ngx releases this client supports (API version 9 appeared in 2.16; 3.0 allows 9 and 10). */
export const SUPPORTED_PAPERLESS = '2.16 to 3.0.x';

/** API versions the client speaks, best first. Nothing the client reads differs between them. */
export const CLIENT_API_VERSIONS = [10, 9] as const;

/** What the server said about itself: `X-Version` (release) and `X-Api-Version` (newest API version it allows). */
export interface ServerVersionFacts {
  version?: string;
  maxApiVersion?: number;
}

/** Paperless answers an `Accept` version it does not allow with 406 before it even checks the token. */
export function isVersionRejection(status: number, body: string): boolean {
  return status === 406 && /invalid version/i.test(body);
}

/** Reads the two version headers Paperless adds to every authenticated response. */
export function versionFacts(headers: Record<string, string>): ServerVersionFacts {
  const facts: ServerVersionFacts = {};
  if (headers['x-version']) facts.version = headers['x-version'];
  const max = Number(headers['x-api-version']);
  if (Number.isInteger(max) && max > 0) facts.maxApiVersion = max;
  return facts;
}

/** The API version to use given the server's newest: the best one the client speaks that the server allows. */
export function pickApiVersion(maxApiVersion: number | undefined, current: number): number {
  if (maxApiVersion === undefined) return current;
  return CLIENT_API_VERSIONS.find((v) => v <= maxApiVersion) ?? current;
}

/** The one error for a server that accepts none of the client's API versions. */
export function unsupportedServerMessage(url: string, facts: ServerVersionFacts): string {
  const found = facts.version ? `Paperless-ngx ${facts.version}` : 'a Paperless-ngx of unknown version';
  const api = facts.maxApiVersion ? ` (its newest API version is ${facts.maxApiVersion})` : '';
  return (
    `The dms at ${url} is ${found}${api}, which accepts neither API version ${CLIENT_API_VERSIONS.join(' nor ')}: ` +
    `this service supports Paperless-ngx ${SUPPORTED_PAPERLESS}. Update Paperless-ngx (or point SVC_DMS_URL at a supported one).`
  );
}
