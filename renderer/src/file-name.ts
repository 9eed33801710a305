// New rule file names as people type them. No DOM: unit-tested.

/** "bills" and "finance/bills" mean bills.yml: a name with no extension gets ".yml"; another extension stays (and is refused). */
export function withExtension(name: string): string {
  return name === '' || /\.[^./]+$/.test(name) ? name : `${name}.yml`;
}
