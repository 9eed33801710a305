// Values in traces as people write them: money with its currency in the reader's locale, dates as dates,
// lists as lists; other strings quoted so an empty one or trailing spaces stay visible. No DOM: unit-tested.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
/** Paperless's monetary wire form: `EUR39.95`, or a bare amount. */
const MONEY_WIRE = /^([A-Z]{3})(-?\d+(?:\.\d+)?)$/;

function money(amount: number, currency: string | null, locale?: string): string {
  if (!currency)
    return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount);
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'code' })
      .format(amount)
      .replace(/\u00a0/g, ' ');
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

function isMoney(value: unknown): value is { amount: number; currency: string | null } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { amount?: unknown }).amount === 'number' &&
    'currency' in value
  );
}

/** Short readable text for a value seen in a trace or a diff. */
export function formatValue(value: unknown, locale?: string): string {
  if (value === undefined) return '—';
  if (value === null) return 'empty';
  if (isMoney(value)) return money(value.amount, value.currency, locale);
  if (typeof value === 'string') {
    const wire = MONEY_WIRE.exec(value);
    if (wire) return money(Number(wire[2]), wire[1], locale);
    const date = ISO_DATE.exec(value);
    if (date)
      return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(
        new Date(Date.UTC(+date[1], +date[2] - 1, +date[3])),
      );
    if (ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value)))
      return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(value));
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return value.map((v) => formatValue(v, locale)).join(', ');
  // An object (a check's inputs, a permission set) as name = value pairs, never as JSON.
  if (typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${k} = ${formatValue(v, locale)}`)
      .join(', ');
  return String(value);
}

/** A service message with the times in it as the reader writes them: "since 2026-03-01T08:00:00.000Z" → "since 3/1/2026, 9:00:00 AM". */
export function readableTimes(text: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g, (iso) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  });
}
