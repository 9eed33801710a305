/**
 * Money as templates see it: renders and compares as its plain decimal (`84.37`, as before), and offers
 * `.amount` (a number) and `.currency` (an ISO code or null) so `{% if total.amount >= 1000 %}` reads it.
 */
import { Drop } from 'liquidjs';
import type { MoneyValue } from './model.js';
import { formatAmount } from './parse-number.js';

export class MoneyDrop extends Drop implements MoneyValue {
  readonly amount: number;
  readonly currency: string | null;

  constructor(money: MoneyValue) {
    super();
    this.amount = money.amount;
    this.currency = money.currency;
  }

  /** What output, comparisons and filters see: the canonical decimal with two places. */
  override valueOf(): string {
    return formatAmount(this.amount);
  }

  override toString(): string {
    return this.valueOf();
  }

  toJSON(): string {
    return this.valueOf();
  }
}
