import { createPaperlessClient } from '../dms/paperless-client.js';
import type { DmsClient, DmsPing } from '../dms/types.js';
import { BadRequestError } from '../app-errors.js';
import { errorMessage } from '../error-message.js';
import { attributionFor, STATE_NOTE, type AttributionStatus } from '../runs/echo/attribution-mode.js';
import { parseSettingsPatch } from './settings-input.js';

/** What "Test connection" found: the client's ping facts as they are, plus how many names the token may see. */
export type DmsConnectionReport = DmsPing & {
  url: string;
  /** Names of each kind the token may read; absent when the dms did not answer. */
  visible?: {
    tags: number;
    correspondents: number;
    document_types: number;
    storage_paths: number;
    custom_fields: number;
  };
  /** Why the names could not be read although the dms answered (e.g. the token lacks a permission). */
  vocabulary_error?: string;
  /**
   * How the service would tell its own changes from a person's with this token: Paperless's audit log, or the
   * document state when the audit log is off or the token's user may not read it (and why).
   */
  attribution?: AttributionStatus;
};

export interface ConnectionTestDeps {
  /** The client in use now (also the demo dms), tested when the form leaves the URL empty. */
  current: DmsClient;
  /** The stored token, only ever sent to the URL it was configured for. */
  currentToken: string | null;
  currentUrl: string | null;
}

/** The settings page's "Test connection". */
export interface DmsConnectionTester {
  test(body: unknown): Promise<DmsConnectionReport>;
}

/** `deps` is read at each test, so a URL or token saved in the settings since is the one compared. */
export function createDmsConnectionTester(deps: () => ConnectionTestDeps): DmsConnectionTester {
  return { test: (body) => testDmsConnection(deps(), body) };
}

const TIMEOUT_MS = 5000;

async function report(client: DmsClient): Promise<DmsConnectionReport> {
  const ping = await client.ping();
  const out: DmsConnectionReport = { ...ping, url: client.url };
  if (!ping.ok) return out;
  try {
    const v = await client.vocabulary({ refresh: true });
    out.visible = {
      tags: v.tags.length,
      correspondents: v.correspondents.length,
      document_types: v.document_types.length,
      storage_paths: v.storage_paths.length,
      custom_fields: v.custom_fields.length,
    };
  } catch (err) {
    out.vocabulary_error = errorMessage(err);
  }
  out.attribution = await client.serviceUser().then(
    (user) => attributionFor(user),
    (err: unknown) => ({
      mode: 'state' as const,
      user: null,
      note: `the Paperless user the token belongs to could not be read (${errorMessage(err)}). ${STATE_NOTE}`,
    }),
  );
  return out;
}

/**
 * Tries a dms URL and token before they are saved (the settings page's "Test connection"). An empty URL
 * tests the connection in use. A URL other than the configured one is never sent the stored token, so a
 * session cannot carry it off to another host; type the token to test it there.
 */
export async function testDmsConnection(deps: ConnectionTestDeps, body: unknown): Promise<DmsConnectionReport> {
  const input = (body ?? {}) as Record<string, unknown>;
  const textOrNothing = (v: unknown) => v === undefined || v === null || typeof v === 'string';
  if (!textOrNothing(input.url) || !textOrNothing(input.token)) {
    throw new BadRequestError(
      'Send JSON {"url": "https://paperless.example.lan", "token": "…"}; both may be left out.',
    );
  }
  const rawUrl = typeof input.url === 'string' ? input.url.trim() : '';
  const typedToken = typeof input.token === 'string' && input.token !== '' ? input.token : null;
  if (rawUrl === '' && typedToken === null) return report(deps.current);
  const url = rawUrl === '' ? deps.currentUrl : (parseSettingsPatch({ dms_url: rawUrl }).dms_url ?? null);
  if (!url) return report(deps.current);
  const token = typedToken ?? (url === deps.currentUrl ? deps.currentToken : null);
  const client = createPaperlessClient({ url, token, timeoutMs: TIMEOUT_MS, retries: 0, maxInFlight: 2 });
  try {
    return await report(client);
  } finally {
    await client.close();
  }
}
