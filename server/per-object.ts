/**
 * `compute` run once per object (by identity), its result kept as long as the object lives: for objects never
 * changed once made, such as a vocabulary snapshot, its tag list or a loaded rule's definition, asked about for
 * every document of a job.
 */
export function perObject<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const results = new WeakMap<K, V>();
  return (key) => {
    if (results.has(key)) return results.get(key) as V;
    const value = compute(key);
    results.set(key, value);
    return value;
  };
}
