// The notify targets' parser lives beside config.ts, which needs it; features take its types from here.
export type { EmailTarget, HttpTarget, NotifyTarget } from '../notify-targets.js';
