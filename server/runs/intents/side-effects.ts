import { randomUUID } from 'node:crypto';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { PlannedNotification, RuleResult, RunTrigger } from '../../engine/engine.js';
import type { Logger } from '../../log.js';
import type { Notifier } from '../notify/notifier.js';
import type { ChangeField } from '../pipeline/plan-changes.js';
import { ACTION_FIELDS } from '../pipeline/trace-outcome.js';
import { changeBasis, intentKey, notificationKey, type RunIdentity } from './intent-keys.js';
import type { Intent, IntentEffect, IntentStore, NotifyEffect } from './intent-store.js';
import { leftNotifications } from './left-notifications.js';
import { tryIntent, type TryResult } from './try-intent.js';
import { newNoteId, type ReadValues } from '../journal/journal-records.js';
import type { WriteJournal } from '../journal/write-journal.js';
import { errorMessage } from '../../error-message.js';

export interface SideEffectsOptions {
  store: IntentStore;
  notifier: Notifier | undefined;
  dms: Pick<DmsClient, 'getDocument' | 'addNote' | 'downloadDocument'>;
  logger: Logger;
  /** Pauses before the second, third… try of a send that failed; its length bounds the tries. */
  retryDelaysMs: readonly number[];
  now?: () => number;
  /** Where a note the retrier adds is recorded before it is sent, so its audit entry is known as the service's. */
  journal?: { journal: Pick<WriteJournal, 'begin'>; dmsKey: () => string };
  /** Intents the retrier tries at once (after a restart many may be due). */
  concurrency?: number;
  /** What the service read before its own write that left the document as it is (changeOrigin), or null. */
  origin?: (doc: DmsDocument) => ReadValues | null;
  /**
   * Holds the document's lane for a note the retrier adds, so it never interleaves with a run of the same document
   * (whose read would miss the note, and whose audit check would meet a note the journal has no id for yet).
   */
  hold?: <T>(document: number, work: () => Promise<T>) => Promise<T>;
}

/** How one notify of a run ended (or, in a dry run, would end), for its trace action. */
export type SendOutcome =
  | { status: 'sent'; key: string }
  | { status: 'would_send' }
  | { status: 'already'; detail: string }
  | { status: 'pending'; detail: string }
  | { status: 'failed'; error: string };

/** The side effects of one run of one document (recorded before they are sent, marked done after: docs/jobs-and-webhook.md#side-effects-notes-and-notifications). */
export interface RunSideEffects {
  /**
   * writePlan's step before the first request: records the notes and the `on_change` notifications this write
   * sets off if these fields are written, so a kill after the writes neither loses them (the retrier sends them
   * after the restart) nor sends them twice (the re-run finds them recorded under the same key).
   */
  prepare(notes: readonly string[], fields: readonly ChangeField[]): Promise<void>;
  /**
   * writePlan's note step, after the fields were written: records the notes and the notifications this
   * write sets off as intents (on disk before anything is sent), then adds the notes not yet added for this
   * change. `skipped` says why no note was added when every one already was.
   */
  writeNotes(
    notes: readonly string[],
    written: readonly ChangeField[],
  ): Promise<{ added: number; skipped: string | null; noteIds: Record<string, number> }>;
  /**
   * Sends one notification once per its key (the change, the run, or for `when: once` the document): recorded,
   * sent, marked done; a target that is down is retried. In a dry run it only says what a real run would do.
   */
  send(rule: string, notification: PlannedNotification): Promise<SendOutcome>;
  /** A notification recorded in advance whose rule wrote nothing after all: forgotten, not sent. */
  drop(rule: string, notification: PlannedNotification): Promise<void>;
}

export interface SideEffects {
  forRun(
    doc: DmsDocument,
    trigger: RunTrigger,
    results: readonly RuleResult[],
    notifications: Record<string, PlannedNotification[]>,
    run?: RunFacts,
  ): RunSideEffects;
  /** Sends what the last run of the service left pending (a kill, a target that was down). */
  resume(): void;
  /** Intents not yet sent nor given up, for health. */
  pendingCount(): number;
  stop(): Promise<void>;
}

interface Wanted {
  rule: string;
  path: string;
  key: string;
  effect: IntentEffect;
  once?: boolean;
}

/** What a run needs to know about itself beyond the document: dry or real, and its event for `when: always`. */
export interface RunFacts {
  dryRun?: boolean;
  eventId?: number | null;
}

/** The intent effect of a planned notification: what is sent, nothing about when. */
export function notifyEffect(n: PlannedNotification): NotifyEffect {
  const effect: NotifyEffect = { kind: 'notify', target: n.target, title: n.title, message: n.message };
  if (n.body !== undefined) effect.body = n.body;
  if (n.headers) effect.headers = n.headers;
  if (n.attach) effect.attach = n.attach;
  return effect;
}

/** The notes each matched rule adds, with the path of its `add_note` action, in order. */
function noteSources(results: readonly RuleResult[]): Array<{ rule: string; path: string; note: string }> {
  const out: Array<{ rule: string; path: string; note: string }> = [];
  for (const result of results) {
    if (result.status !== 'matched') continue;
    const added = result.changes.notes?.to;
    const paths = result.actions.filter((a) => a.action === 'add_note' && a.status === 'planned').map((a) => a.path);
    (Array.isArray(added) ? added.map(String) : []).forEach((note, i) =>
      out.push({ rule: result.rule_id, path: paths[i] ?? `notes/${i}`, note }),
    );
  }
  return out;
}

/** The rules whose notifications this write sets off: the test settle-notifications makes after it, made before. */
function firingRules(
  results: readonly RuleResult[],
  trigger: RunTrigger,
  written: readonly ChangeField[],
  notesToWrite: boolean,
): string[] {
  return results
    .filter(
      (result) =>
        result.status === 'matched' &&
        (trigger === 'added' ||
          result.actions.some(
            (a) =>
              a.action !== 'notify' &&
              a.status === 'planned' &&
              (a.action === 'add_note' ? notesToWrite : written.includes(ACTION_FIELDS[a.action])),
          )),
    )
    .map((r) => r.rule_id);
}

const RETRIER = Symbol('retrier');

export function createSideEffects(options: SideEffectsOptions): SideEffects {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  const concurrency = options.concurrency ?? 4;
  /** Who sends each pending intent now: a run (its own symbol) or the retrier. In memory: after a restart, the retrier. */
  const owners = new Map<string, symbol>();
  // Everything pending at start was recorded by the last process.
  const left = leftNotifications(store.pending());
  const busy = new Set<string>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tryOne = (intent: Intent): Promise<TryResult> =>
    tryIntent(intent, {
      dms: options.dms,
      notifier: options.notifier,
      retryDelaysMs: options.retryDelaysMs,
      now,
      journal: options.journal,
    });

  /** Stores a try's result; a retry hands the intent to the retrier. */
  const settle = async (key: string, change: TryResult['change']): Promise<void> => {
    await store.update(key, change);
    if (change.status === 'pending') owners.set(key, RETRIER);
    else owners.delete(key);
    if (change.status === 'pending') wake();
  };

  /** Starts the retrier's due intents and sets the timer for the next one. */
  function wake(): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = undefined;
    const at = now();
    const mine = store.pending().filter((i) => owners.get(i.key) === RETRIER && !busy.has(i.key));
    let next = Infinity;
    for (const intent of mine) {
      const due = intent.next_at ?? 0;
      if (due > at) next = Math.min(next, due);
      else if (busy.size < concurrency) start(intent);
    }
    if (next < Infinity) {
      timer = setTimeout(wake, Math.max(0, next - at));
      timer.unref();
    }
  }

  function start(intent: Intent): void {
    busy.add(intent.key);
    const job = (async () => {
      const result =
        intent.kind === 'note' && options.hold
          ? await options.hold(intent.document, () => tryOne(intent))
          : await tryOne(intent);
      await settle(intent.key, result.change);
      const where = `(document ${intent.document}, rule ${intent.rule})`;
      if (result.change.status === 'done') logger.info(result.message);
      else if (result.change.status === 'pending') logger.warn(`${result.message} ${where}`);
      else logger.error(`${intent.kind === 'notify' ? 'notify' : 'note'} finally failed ${where}: ${result.message}`);
    })()
      .catch((err: unknown) => logger.error(`side effect ${intent.key} could not be settled: ${errorMessage(err)}`))
      .finally(() => {
        busy.delete(intent.key);
        running.delete(job);
        wake();
      });
    running.add(job);
  }

  return {
    forRun(doc, trigger, results, notifications, run = {}) {
      const me = Symbol(`run of document ${doc.id}`);
      // Computed on first use: most runs (dry job runs over many documents included) have no side effects.
      let digest: string | undefined;
      const basis = () => (digest ??= changeBasis(doc, trigger, options.origin?.(doc) ?? null));
      const keyOf = (rule: string, path: string) => intentKey(doc.id, basis(), rule, path);
      const identity: RunIdentity =
        run.eventId !== undefined && run.eventId !== null ? { eventId: run.eventId } : { nonce: randomUUID() };
      const chosen = new Map<string, string>();
      const notifyKey = (rule: string, n: PlannedNotification): string => {
        const slot = `${rule}\0${n.path}`;
        let key = chosen.get(slot);
        if (key === undefined) {
          key = notificationKey(doc.id, rule, n, basis, identity);
          if (n.when !== 'once' && !run.dryRun && !store.get(key))
            key = left.take(doc.id, rule, n.path, notifyEffect(n)) ?? key;
          chosen.set(slot, key);
        }
        return key;
      };

      /** Records the intents not yet known (or given up before) as this run's; the others stay as they are. */
      const claim = async (wanted: Wanted[]): Promise<void> => {
        const fresh: Intent[] = [];
        for (const { rule, path, key, effect, once } of wanted) {
          const known = store.get(key);
          if (known?.status === 'done' || (known?.status === 'pending' && owners.has(key))) continue;
          const at = now();
          fresh.push({
            ...effect,
            key,
            document: doc.id,
            rule,
            path,
            ...(once ? { once } : {}),
            status: 'pending',
            attempts: 0,
            next_at: null,
            error: null,
            created_at: at,
            updated_at: at,
          });
          owners.set(key, me);
        }
        if (fresh.length > 0) await store.put(...fresh);
      };
      const whyNot = (key: string, done: string): string => {
        const known = store.get(key);
        if (known?.once)
          return known.status === 'done'
            ? `already sent once for this document (when: once) on ${new Date(known.updated_at).toISOString()} (Idempotency-Key ${key})`
            : `its one message for this document is already being sent (when: once, Idempotency-Key ${key})`;
        return known?.status === 'done'
          ? `already ${done} for this change (Idempotency-Key ${key})`
          : `already being sent for this change (Idempotency-Key ${key})`;
      };
      /** A key a real run would not claim: sent, or being sent by someone else. */
      const taken = (key: string): boolean => {
        const known = store.get(key);
        return known?.status === 'done' || (known?.status === 'pending' && owners.has(key) && owners.get(key) !== me);
      };

      /** The intents of this run's notes and of the `on_change` notifications a write of these fields sets off. */
      const wantedFor = (notes: readonly string[], written: readonly ChangeField[]) => {
        const sources = noteSources(results);
        const planned: Wanted[] = notes.map((note) => {
          const i = sources.findIndex((s) => s.note.trim() === note.trim());
          const source = i >= 0 ? sources.splice(i, 1)[0] : { rule: '(notes)', path: `notes/${note}` };
          return {
            rule: source.rule,
            path: source.path,
            key: keyOf(source.rule, source.path),
            effect: { kind: 'note', note },
          };
        });
        // `on_change` ones depend on this write; `always` ones go whatever it writes, but a kill after the write
        // would leave a run the restart finds done (the write journal), so both are recorded before it. `once`
        // ones are recorded when they are sent.
        const wanted = (rule: string, when: PlannedNotification['when']): Wanted[] =>
          (notifications[rule] ?? [])
            .filter((n) => n.when === when)
            .map((n) => ({ rule, path: n.path, key: notifyKey(rule, n), effect: notifyEffect(n) }));
        const firing: Wanted[] = [
          ...firingRules(results, trigger, written, notes.length > 0).flatMap((rule) => wanted(rule, 'on_change')),
          ...results.filter((r) => r.status === 'matched').flatMap((r) => wanted(r.rule_id, 'always')),
        ];
        return { planned, firing };
      };

      return {
        async prepare(notes, fields) {
          if (run.dryRun) return;
          const { planned, firing } = wantedFor(notes, fields);
          // One write to disk for all of them, before the first request of the run: a kill after it loses nothing.
          await claim([...planned, ...firing]);
        },
        async writeNotes(notes, written) {
          if (run.dryRun) throw new Error('a dry run writes no notes');
          const { planned, firing } = wantedFor(notes, written);
          // Claimed by `prepare` already when the run wrote fields first; a notes-only write claims them here.
          await claim([...planned, ...firing]);
          let added = 0;
          let skipped: string | null = null;
          // The id Paperless gave each note: its audit entry names the note by it (the write journal matches it).
          const noteIds: Record<string, number> = {};
          const before = new Set((doc.notes ?? []).map((n) => n.id));
          for (const [i, { key, effect }] of planned.entries()) {
            if (owners.get(key) !== me) {
              skipped ??= `note ${whyNot(key, 'added')}`;
              continue;
            }
            try {
              if (effect.kind === 'note') {
                const after = await options.dms.addNote(doc.id, effect.note);
                const id = newNoteId(after, before, effect.note);
                if (id !== undefined) noteIds[effect.note] = id;
                for (const n of after) before.add(n.id);
              }
            } catch (err) {
              // Left to a later run of the same change (the catch-up, a retry), which claims them again.
              for (const rest of planned.slice(i)) {
                if (owners.get(rest.key) === me)
                  await settle(rest.key, { status: 'failed', attempts: 1, next_at: null, error: errorMessage(err) });
              }
              throw err;
            }
            added++;
            await settle(key, { status: 'done', attempts: 1, next_at: null, error: null });
          }
          return { added, skipped: added === 0 ? skipped : null, noteIds };
        },
        async send(rule, notification) {
          const key = notifyKey(rule, notification);
          if (run.dryRun)
            return taken(key) ? { status: 'already', detail: whyNot(key, 'sent') } : { status: 'would_send' };
          const effect = notifyEffect(notification);
          const once = notification.when === 'once';
          await claim([{ rule, path: notification.path, key, effect, once }]);
          if (owners.get(key) !== me) return { status: 'already', detail: whyNot(key, 'sent') };
          const result = await tryOne({ ...(store.get(key) as Intent), ...effect });
          await settle(key, result.change);
          if (result.change.status === 'done') return { status: 'sent', key };
          if (result.change.status === 'pending') return { status: 'pending', detail: result.message };
          return { status: 'failed', error: result.message };
        },
        async drop(rule, notification) {
          const key = notifyKey(rule, notification);
          if (owners.get(key) !== me) return;
          owners.delete(key);
          await store.remove(key);
        },
      };
    },
    resume() {
      const left = store.pending().filter((i) => !owners.has(i.key));
      for (const intent of left) owners.set(intent.key, RETRIER);
      if (left.length > 0)
        logger.info(
          `${left.length} note(s) and notification(s) recorded before the last stop are not known to be sent; sending them now`,
        );
      wake();
    },
    pendingCount: () => store.pending().length,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}
