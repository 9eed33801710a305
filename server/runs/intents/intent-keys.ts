import { createHash } from 'node:crypto';
import type { DmsDocument } from '../../dms/types.js';
import type { RunTrigger } from '../../engine/index.js';
import { documentState } from '../document-state.js';

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('base64url').slice(0, length);

/**
 * What "the change that triggered the run" is, for idempotency keys. A new document is added once, so its
 * arrival is named by its `added` time whatever the state: a second arrival of it (webhook and catch-up,
 * a redelivery) is the same change even after the service wrote it. Any other run is named by the whole
 * state the rules read — fields, notes (by id) and permissions — so a run of the same state is the same
 * change, and a person's change (deleting the note the rule added included) is a new one.
 */
export function changeBasis(doc: DmsDocument, trigger: RunTrigger): string {
  if (trigger === 'added') return `added:${doc.added}`;
  const notes = (doc.notes ?? []).map((n) => n.id).sort((a, b) => a - b);
  return `state:${digest(JSON.stringify([documentState(doc), notes, doc.permissions ?? null]), 22)}`;
}

/**
 * The idempotency key of one side effect: document, rule, action path and change. Printable ASCII, so it
 * can travel as an HTTP header (`Idempotency-Key`) and in a Message-ID.
 */
export function intentKey(document: number, basis: string, rule: string, path: string): string {
  return `dms-rules-${document}-${digest(JSON.stringify([basis, rule, path]), 27)}`;
}

/** What names one run for `when: always`: its event (a retried event is the same run), else the run alone. */
export type RunIdentity = { eventId: number } | { nonce: string };

/**
 * The key of one notification by its `when`: `on_change` names the change (as a note's), `always` the run,
 * `once` only document, rule and target, so it stays the same whatever changes: the durable "sent once" record.
 */
export function notificationKey(
  document: number,
  rule: string,
  notification: { path: string; target: string; when?: string },
  change: () => string,
  run: RunIdentity,
): string {
  if (notification.when === 'once') return intentKey(document, 'once', rule, `target:${notification.target}`);
  if (notification.when === 'always') {
    const basis = 'eventId' in run ? `event:${run.eventId}` : `run:${run.nonce}`;
    return intentKey(document, basis, rule, notification.path);
  }
  return intentKey(document, change(), rule, notification.path);
}
