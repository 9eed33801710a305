import { floodTest } from './support/chaos-flood-test.js';

// The flood of docs/jobs-and-webhook.md ("Chaos") on a 3.0 profile (2.x: chaos-flood-kill-2x.test.ts).
// `npm run chaos -- N K` runs N seeds per profile with K kills each.
floodTest('3.0', 12);
