/** Maps items with at most `limit` calls in flight, keeping order; stops starting new ones once `stop()` says so. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
  stop: () => boolean = () => false,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  // Items never started (stopped early) are left out; the caller sees only what ran.
  return results.filter((_, i) => i in results);
}
