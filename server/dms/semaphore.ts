/** At most `limit` tasks run at once; the rest wait in arrival order. */
export interface Semaphore {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly active: number;
}

export function createSemaphore(limit: number): Semaphore {
  let active = 0;
  const waiting: Array<() => void> = [];
  // A finishing task hands its slot straight to the next waiter, so a newcomer cannot slip in between.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return {
    get active() {
      return active;
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
