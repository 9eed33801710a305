import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { PlannedNotification, RuleResult, RunTrigger } from '../../engine/index.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Notifier } from '../notify/notifier.js';
import type { ChangeField } from '../plan-changes.js';
import { ACTION_FIELDS } from '../trace-outcome.js';
import { changeBasis, intentKey } from './intent-keys.js';
import type { Intent, IntentEffect, IntentStore } from './intent-store.js';
import { tryIntent, type TryResult } from './try-intent.js';

export interface SideEffectsOptions {
  store: IntentStore;
  notifier: Notifier | undefined;
  dms: Pick<DmsClient, 'getDocument' | 'addNote'>;
  logger: Logger;
  /** Pauses before the second, third… try of a send that failed; its length bounds the tries. */
  retryDelaysMs: readonly number[];
  now?: () => number;
  /** Intents the retrier tries at once (after a restart many may be due). */
  concurrency?: number;
}

/** How one notify of a run ended, for its trace action. */
export type SendOutcome =
  | { status: 'sent'; key: string }
  | { status: 'already'; detail: string }
  | { status: 'pending'; detail: string }
  | { status: 'failed'; error: string };

/** The side effects of one run of one document (DESIGN §6: recorded before they are sent, marked done after). */
export interface RunSideEffects {
  /**
   * apply-plan's note step, after the fields were written: records the notes and the notifications this
   * write sets off as intents (on disk before anything is sent), then adds the notes not yet added for this
   * change. `skipped` says why no note was added when every one already was.
   */
  writeNotes(
    notes: readonly string[],
    written: readonly ChangeField[],
  ): Promise<{ added: number; skipped: string | null }>;
  /** Sends one notification once per change: recorded, sent, marked done; a target that is down is retried. */
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
  effect: IntentEffect;
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
  const busy = new Set<string>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tryOne = (intent: Intent): Promise<TryResult> =>
    tryIntent(intent, { dms: options.dms, notifier: options.notifier, retryDelaysMs: options.retryDelaysMs, now });

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
      const result = await tryOne(intent);
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
    forRun(doc, trigger, results, notifications) {
      const me = Symbol(`run of document ${doc.id}`);
      // Digesting the document (its whole content) only when a side effect needs a key: most runs have none.
      let basis: string | undefined;
      const keyOf = (rule: string, path: string) =>
        intentKey(doc.id, (basis ??= changeBasis(doc, trigger)), rule, path);

      /** Records the intents not yet known (or given up before) as this run's; the others stay as they are. */
      const claim = async (wanted: Wanted[]): Promise<void> => {
        const fresh: Intent[] = [];
        for (const { rule, path, effect } of wanted) {
          const key = keyOf(rule, path);
          const known = store.get(key);
          if (known?.status === 'done' || (known?.status === 'pending' && owners.has(key))) continue;
          const at = now();
          fresh.push({
            ...effect,
            key,
            document: doc.id,
            rule,
            path,
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
      const whyNot = (key: string, done: string): string =>
        store.get(key)?.status === 'done'
          ? `already ${done} for this change (Idempotency-Key ${key})`
          : `already being sent for this change (Idempotency-Key ${key})`;

      return {
        async writeNotes(notes, written) {
          const sources = noteSources(results);
          const planned: Wanted[] = notes.map((note) => {
            const i = sources.findIndex((s) => s.note.trim() === note.trim());
            const source = i >= 0 ? sources.splice(i, 1)[0] : { rule: '(notes)', path: `notes/${note}` };
            return { rule: source.rule, path: source.path, effect: { kind: 'note', note } };
          });
          const firing: Wanted[] = firingRules(results, trigger, written, notes.length > 0).flatMap((rule) =>
            (notifications[rule] ?? []).map((n) => ({
              rule,
              path: n.path,
              effect: { kind: 'notify', target: n.target, title: n.title, message: n.message },
            })),
          );
          // One write to disk for all of them, before the first note: a kill after it loses nothing.
          await claim([...planned, ...firing]);
          let added = 0;
          let skipped: string | null = null;
          for (const [i, { rule, path, effect }] of planned.entries()) {
            const key = keyOf(rule, path);
            if (owners.get(key) !== me) {
              skipped ??= `note ${whyNot(key, 'added')}`;
              continue;
            }
            try {
              if (effect.kind === 'note') await options.dms.addNote(doc.id, effect.note);
            } catch (err) {
              // Left to a later run of the same change (the catch-up, a retry), which claims them again.
              for (const rest of planned.slice(i)) {
                const restKey = keyOf(rest.rule, rest.path);
                if (owners.get(restKey) === me)
                  await settle(restKey, { status: 'failed', attempts: 1, next_at: null, error: errorMessage(err) });
              }
              throw err;
            }
            added++;
            await settle(key, { status: 'done', attempts: 1, next_at: null, error: null });
          }
          return { added, skipped: added === 0 ? skipped : null };
        },
        async send(rule, notification) {
          const key = keyOf(rule, notification.path);
          const effect: IntentEffect = {
            kind: 'notify',
            target: notification.target,
            title: notification.title,
            message: notification.message,
          };
          await claim([{ rule, path: notification.path, effect }]);
          if (owners.get(key) !== me) return { status: 'already', detail: whyNot(key, 'sent') };
          const result = await tryOne({ ...(store.get(key) as Intent), ...effect });
          await settle(key, result.change);
          if (result.change.status === 'done') return { status: 'sent', key };
          if (result.change.status === 'pending') return { status: 'pending', detail: result.message };
          return { status: 'failed', error: result.message };
        },
        async drop(rule, notification) {
          const key = keyOf(rule, notification.path);
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
