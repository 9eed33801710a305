// What to tell a person whose sign-in failed. No DOM here, so it is unit-tested in node.
import { ApiError, errorMessage } from './api.js';

/** 403: wrong credentials (the no-admin case has its own page); 429: when to try again; otherwise the service's message. */
export function loginMessage(err: unknown): string {
  if (err instanceof ApiError && err.status === 403) return 'Wrong user name or password.';
  if (err instanceof ApiError && err.status === 429) {
    const seconds = err.retryAfter ?? 300;
    const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString();
    const wait = seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
    return `Too many sign-in attempts from this address. Try again in ${wait} (at ${at}).`;
  }
  return errorMessage(err);
}
