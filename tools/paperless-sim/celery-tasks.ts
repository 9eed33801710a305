// Paperless's Celery tasks that a request queues (`bulk_update_documents` after a bulk edit), as the simulator runs
// them: a moment after the request, in order. Tests make the moment deterministic: `hold` keeps every task until
// `release()`, `delayMs` spaces them from the request like a busy worker.

export interface TaskQueueConfig {
  /** How long after the request a task runs at the earliest (default 0: right after the answer was written). */
  delayMs?: number;
  /** Tasks wait until `release()`: a test looks at the state between a bulk edit's answer and its task. */
  hold?: boolean;
}

export interface TaskQueue {
  configure(config: TaskQueueConfig | null): void;
  /** Queues a task, as `.delay()` does. */
  enqueue(name: string, run: () => void): void;
  /** Runs every waiting task now (held ones included), in order; answers how many ran. */
  release(): number;
  /** Runs the tasks that are not held now; answers how many ran. */
  flushDue(): number;
  /** Names of the tasks waiting, oldest first. */
  pending(): string[];
  /** Resolves once no task that is not held is waiting. */
  idle(): Promise<void>;
  close(): void;
}

interface Task {
  name: string;
  run: () => void;
  held: boolean;
  cancel?: () => void;
}

export function createTaskQueue(initial: TaskQueueConfig = {}): TaskQueue {
  let config: TaskQueueConfig = initial;
  const tasks: Task[] = [];
  let waiters: Array<() => void> = [];
  let closed = false;

  const settle = () => {
    if (tasks.some((t) => !t.held)) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };
  const runAll = (chosen: Task[]) => {
    for (const task of chosen) {
      const index = tasks.indexOf(task);
      if (index < 0) continue;
      tasks.splice(index, 1);
      task.cancel?.();
      task.run();
    }
    settle();
    return chosen.length;
  };

  return {
    configure(next) {
      config = next ?? {};
    },
    enqueue(name, run) {
      if (closed) return;
      const task: Task = { name, run, held: config.hold === true };
      tasks.push(task);
      if (task.held) return;
      const delay = config.delayMs ?? 0;
      if (delay > 0) {
        const timer = setTimeout(() => runAll([task]), delay);
        task.cancel = () => clearTimeout(timer);
      } else {
        const immediate = setImmediate(() => runAll([task]));
        task.cancel = () => clearImmediate(immediate);
      }
    },
    release: () => runAll([...tasks]),
    flushDue: () => runAll(tasks.filter((t) => !t.held)),
    pending: () => tasks.map((t) => t.name),
    idle() {
      if (!tasks.some((t) => !t.held)) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      closed = true;
      for (const task of tasks) task.cancel?.();
      tasks.length = 0;
      settle();
    },
  };
}
