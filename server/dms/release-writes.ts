import { DmsError, DmsNotFoundError } from './dms-errors.js';
import type { Transport } from './http-transport.js';
import type { ReleaseQuirks } from './release.js';
import type { DmsCustomFieldValue, DmsDocument, DmsVocabulary, DocumentPatch, DocumentWriteState } from './types.js';

// Writes that a release cannot take as the service would send them, rewritten so that release stores exactly
// what was meant or nothing at all (docs/dms.md, "Releases").

export interface ReleaseWriteDeps {
  transport: Transport;
  quirks(): ReleaseQuirks;
  version(): string | undefined;
  vocabulary(): Promise<DmsVocabulary>;
  getWriteStates(ids: number[]): Promise<DocumentWriteState[]>;
}

const BULK = 'POST /api/documents/bulk_edit/';

/**
 * `modify_custom_fields` as the release takes it. Before 2.20.13 every document a link names must exist (Paperless
 * would store the dangling link and then fail). On 2.16–2.18 a null document-link value breaks the bulk edit after
 * the fields before it were stored, so such a change goes as one PATCH of the whole custom-field set per document
 * instead: all of it is stored, or (a refused PATCH) none of it. That PATCH resends the links the document holds,
 * so a link to a deleted document refuses it; the error then names that link.
 */
export async function modifyCustomFields(
  deps: ReleaseWriteDeps,
  documents: number[],
  parameters: Record<string, unknown>,
): Promise<void> {
  const quirks = deps.quirks();
  const add = (parameters.add_custom_fields ?? {}) as Record<string, unknown>;
  const remove = ((parameters.remove_custom_fields ?? []) as number[]).map(Number);
  const links = new Set(
    (await deps.vocabulary()).custom_fields.filter((f) => f.data_type === 'documentlink').map((f) => f.id),
  );
  const linkValues = Object.entries(add).filter(([id]) => links.has(Number(id)));
  if (quirks.bulkStoresDanglingLinks) {
    const named = [...new Set(linkValues.flatMap(([, value]) => (Array.isArray(value) ? (value as number[]) : [])))];
    if (named.length > 0) {
      const found = new Set((await deps.getWriteStates(named)).map((d) => d.id));
      const missing = named.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new DmsError(
          `A document link names document${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which the dms does not have (or the token may not see): ` +
            `Paperless-ngx ${deps.version() ?? ''} would store the dangling link and then fail, so nothing was written.`,
          BULK,
          400,
        );
      }
    }
  }
  if (!(quirks.bulkNullLinkFails && linkValues.some(([, value]) => value === null))) {
    await deps.transport.send({
      method: 'POST',
      path: '/api/documents/bulk_edit/',
      body: { documents, method: 'modify_custom_fields', parameters },
      idempotent: true,
    });
    return;
  }
  const states = await deps.getWriteStates(documents);
  for (const state of states) {
    const next = new Map<number, unknown>(
      state.custom_fields.filter((cf) => !remove.includes(cf.field)).map((cf) => [cf.field, cf.value]),
    );
    for (const [id, value] of Object.entries(add)) next.set(Number(id), value);
    const custom_fields: DmsCustomFieldValue[] = [...next].map(([field, value]) => ({ field, value }));
    try {
      await deps.transport.send({
        method: 'PATCH',
        path: `/api/documents/${state.id}/`,
        body: { custom_fields },
        idempotent: true,
      });
    } catch (err) {
      throw (
        (await danglingResentLink(deps, state.id, custom_fields, new Set(Object.keys(add).map(Number)), err)) ?? err
      );
    }
  }
}

/**
 * The whole-set PATCH resends every link the document holds, and Paperless checks each again: a link to a document
 * deleted (or in the trash) since makes it refuse the lot with a message naming no field. Which link it is, in words
 * a person can act on; null when the refusal is about something else.
 */
async function danglingResentLink(
  deps: ReleaseWriteDeps,
  document: number,
  sent: DmsCustomFieldValue[],
  written: Set<number>,
  err: unknown,
): Promise<DmsError | null> {
  if (!(err instanceof DmsError && err.dmsStatus === 400)) return null;
  const fields = (await deps.vocabulary()).custom_fields;
  const resent = sent.filter(
    (cf) =>
      !written.has(cf.field) &&
      Array.isArray(cf.value) &&
      fields.some((f) => f.id === cf.field && f.data_type === 'documentlink'),
  );
  const named = [...new Set(resent.flatMap((cf) => cf.value as number[]))];
  if (named.length === 0) return null;
  const found = new Set((await deps.getWriteStates(named)).map((d) => d.id));
  const dangling = resent.find((cf) => (cf.value as number[]).some((id) => !found.has(id)));
  if (!dangling) return null;
  const name = fields.find((f) => f.id === dangling.field)?.name ?? `#${dangling.field}`;
  const missing = (dangling.value as number[]).filter((id) => !found.has(id));
  return new DmsError(
    `Document ${document}'s field "${name}" links to document ${missing.join(', ')}, which the dms does not have ` +
      `(deleted, in the trash, or not visible to the token). Paperless-ngx ${deps.version() ?? ''} can store an empty ` +
      `document link only by resending every custom field, and refuses that while this link points nowhere, so ` +
      `nothing was written. Clear or fix "${name}" in Paperless.`,
    err.request,
    400,
  );
}

/** A PATCH split so that the owner change (with `set_permissions`, which only an owner may send) can be sent last. */
export function splitGiveAway(patch: DocumentPatch): { first: DocumentPatch; last: DocumentPatch | null } {
  if (patch.owner === undefined) return { first: patch, last: null };
  const { owner, set_permissions, ...first } = patch;
  return { first, last: set_permissions === undefined ? { owner } : { owner, set_permissions } };
}

/** What `updateDocument` returns for a document the PATCH gave away on 2.x: stored, and no longer visible to the token. */
export type GivenAwayDocument = DmsDocument & { given_away: true };

export function isGivenAway(doc: DmsDocument | undefined): doc is GivenAwayDocument {
  return doc?.given_away === true;
}

/**
 * A PATCH, where a 2.x answer of 404 to one that changes the owner means "stored, and the token's user no longer
 * sees it" (`DocumentViewSet.update` re-reads through the permission filter): the document as it was read just
 * before, with the patch applied, marked `given_away`. Every later write to it would be refused, so the owner
 * change must be the last write to the document.
 */
export async function patchDocument(
  deps: ReleaseWriteDeps,
  id: number,
  patch: DocumentPatch,
  notFound: string,
): Promise<DmsDocument> {
  const path = `/api/documents/${id}/`;
  // The read also tells a fresh client which release it talks to.
  const mayGiveAway = patch.owner !== undefined && (deps.version() === undefined || deps.quirks().giveAwayAnswers404);
  const read = mayGiveAway
    ? await deps.transport.send({
        method: 'GET',
        path,
        query: new URLSearchParams({ full_perms: 'true' }),
        idempotent: true,
        notFound,
      })
    : null;
  const before = read && deps.quirks().giveAwayAnswers404 ? (read.json as DmsDocument) : null;
  try {
    return (await deps.transport.send({ method: 'PATCH', path, body: patch, idempotent: true, notFound }))
      .json as DmsDocument;
  } catch (err) {
    if (!(before && err instanceof DmsNotFoundError)) throw err;
    const { set_permissions: _permissions, ...fields } = patch;
    return { ...before, ...fields, given_away: true };
  }
}
