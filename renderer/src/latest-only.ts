/**
 * For a view that reloads while an earlier load may still be answering: each load asks `begin()`
 * and applies its result only while `isLatest()` holds, so a slow earlier answer never replaces a newer one.
 */
export function latestOnly(): { begin(): { isLatest(): boolean } } {
  let latest = 0;
  return {
    begin() {
      const mine = ++latest;
      return { isLatest: () => mine === latest };
    },
  };
}
