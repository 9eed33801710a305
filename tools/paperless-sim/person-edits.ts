import { randomBytes } from 'node:crypto';
import { applyDocumentWrite } from '../../server/dms/demo/document-write.js';
import { SimHttpError, type SimHooks } from '../../server/dms/demo/http-kit.js';
import type { SimBehaviour } from '../../server/dms/demo/profiles.js';
import { addNote } from '../../server/dms/demo/routes-documents.js';
import { SIM_USER, type SimDocument } from '../../server/dms/demo/sim-types.js';
import { accountUser, superuser, type SimUser } from '../../server/dms/demo/sim-users.js';
import type { SimStore } from '../../server/dms/demo/store.js';

// Changes made behind the service's back, as tests need them: by a person (a named Paperless user, logged in the
// audit log as the actor) or by Paperless itself (`actor: null`: a workflow run by Celery, logged without actor).

/** A username, or null for Paperless's own workflow. */
export type SimActor = string | null;

export interface EditOptions {
  /** Fire "Document Updated" as a PATCH does. Default: yes for a person, no for a workflow (it runs inside one). */
  webhook?: boolean;
}

export interface PersonEdits {
  /** An API token for the account with that username (created on first use); it acts with the account's rights. */
  tokenFor(username: string): string;
  /** Writes `changes` (a PATCH body) to the document as the actor: validated, mirrored and logged like a PATCH. */
  editAs(id: number, changes: Record<string, unknown>, actor: SimActor, options?: EditOptions): SimDocument;
  /** Adds a note as the actor (a workflow's note is by the superuser, logged without actor); no webhook. */
  addNoteAs(id: number, text: string, actor: SimActor): SimDocument;
  /** The next PATCH/PUT or bulk edit of the document: `changes` land between its save and its answer. */
  duringNextWrite(id: number, changes: Record<string, unknown>, actor: SimActor, options?: EditOptions): void;
  /** Called by the API between a write's save and its answer. */
  afterSave(id: number): void;
}

export function createPersonEdits(
  store: SimStore,
  hooks: SimHooks,
  byToken: Map<string, SimUser>,
  behaviour: SimBehaviour,
): PersonEdits {
  const pending = new Map<number, () => void>();

  const actorUser = (actor: SimActor): { user: SimUser; actor: number | null } => {
    if (actor === null) return { user: superuser(SIM_USER.id, SIM_USER.username), actor: null };
    const account = store.users.find((u) => u.username === actor);
    if (!account)
      throw new Error(`No simulator user "${actor}"; known: ${store.users.map((u) => u.username).join(', ')}.`);
    return { user: accountUser(store, account.id), actor: account.id };
  };
  const documentFor = (id: number) => {
    const doc = store.getDocument(id);
    if (!doc) throw new Error(`No simulator document ${id}.`);
    return doc;
  };

  function editAs(
    id: number,
    changes: Record<string, unknown>,
    actor: SimActor,
    options: EditOptions = {},
  ): SimDocument {
    const doc = documentFor(id);
    const who = actorUser(actor);
    try {
      // A person works in a browser session: auditlog's middleware knows them too.
      applyDocumentWrite(store, doc, changes, false, who.user, {
        actor: who.actor,
        sessionActor: who.actor,
        behaviour,
      });
    } catch (err) {
      if (err instanceof SimHttpError)
        throw new Error(
          `Paperless would refuse this change (${err.result.status}): ${JSON.stringify(err.result.body ?? err.result.text)}`,
          { cause: err },
        );
      throw err;
    }
    if (options.webhook ?? actor !== null) hooks.documentUpdated(id);
    return doc;
  }

  return {
    tokenFor(username) {
      for (const [token, user] of byToken) if (user.username === username) return token;
      const { user } = actorUser(username);
      const token = randomBytes(20).toString('hex');
      byToken.set(token, user);
      return token;
    },
    editAs,
    addNoteAs(id, text, actor) {
      const doc = documentFor(id);
      const who = actorUser(actor);
      addNote(store, doc, text, who.user.id, who.actor);
      return doc;
    },
    duringNextWrite(id, changes, actor, options) {
      documentFor(id);
      actorUser(actor);
      pending.set(id, () => editAs(id, changes, actor, options));
    },
    afterSave(id) {
      const edit = pending.get(id);
      pending.delete(id);
      edit?.();
    },
  };
}
