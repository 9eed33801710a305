import type { DmsClient } from '../dms/types.js';
import { errorMessage } from '../error-message.js';

/**
 * How much of the archive the suggestion saw. Paperless leaves the documents a token's user may not view out of
 * every list and every count (the document list and its `count`, `/api/statistics/`, each label's
 * `document_count`), so for a user who is not a superuser how many it did not see cannot be known from its API.
 * What can be counted: the documents the dms listed when the read began but did not deliver (deleted, or no
 * longer visible to the token, while the archive was read).
 */
export interface SuggestionVisibility {
  /** Documents the dms listed for the token when the read began. */
  listed: number;
  /** Documents the learner read. */
  read: number;
  /** Listed but not delivered by the read, or read and gone when judging read their text again (uncached ones). */
  not_delivered: number;
  /** Whether the token's user is a superuser (who sees every document); null when the dms would not say. */
  superuser: boolean | null;
  /** What a person should know about the figures; empty when the token saw the whole archive. */
  warnings: string[];
}

export interface TokenUser {
  superuser: boolean | null;
  username: string | null;
  /** Why the dms would not say whose token it is. */
  unknownBecause: string | null;
}

/** The token's user from `/api/ui_settings/`; a user without `view_uisettings` is answered 403 there. */
export async function tokenUser(dms: DmsClient): Promise<TokenUser> {
  try {
    const user = await dms.serviceUser();
    return { superuser: user.superuser, username: user.username, unknownBecause: null };
  } catch (err) {
    return { superuser: null, username: null, unknownBecause: errorMessage(err) };
  }
}

export function visibility(user: TokenUser, listed: number, read: number, judged: number): SuggestionVisibility {
  const vanished = Math.max(0, listed - read) + Math.max(0, read - judged);
  const warnings: string[] = [];
  if (vanished > 0)
    warnings.push(
      `${vanished} of the ${listed} documents the dms listed for the token were not delivered while the archive ` +
        `was read (deleted, or no longer visible to the token, meanwhile); the figures leave them out.`,
    );
  if (user.superuser === false)
    warnings.push(
      `The token belongs to "${user.username}", not a superuser: Paperless leaves the documents this user may not ` +
        `view out of every list and count, so how many were not visible cannot be known; the suggestion read only ` +
        `the ${read} documents the token sees. Use a superuser's token, or give this user view ` +
        `permission on every document, to learn from the whole archive.`,
    );
  if (user.superuser === null)
    warnings.push(
      `The dms would not say whose token this is (${user.unknownBecause}); unless it is a superuser's, documents ` +
        `its user may not view were left out, and Paperless does not say how many: the figures cover the ${read} ` +
        `documents the token sees.`,
    );
  return { listed, read, not_delivered: vanished, superuser: user.superuser, warnings };
}
