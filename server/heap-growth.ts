import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what was live at its last full collection before it collects
 * again. V8's own factor reaches 4× on a fast machine, and a burst's batches live long enough to be promoted, so
 * the service's RSS rose with the burst's size; at 30 % the 10,000-delivery burst grows it by about half as much
 * at the same speed (docs/performance.md#memory-through-a-burst).
 */
export const HEAP_GROWING_PERCENT = 30;

/** Sets the growth limit for this process, unless its command line already chose one. */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): void {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
