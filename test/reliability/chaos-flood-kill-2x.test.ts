import { floodTest } from './support/chaos-flood-test.js';

// The flood of docs/jobs-and-webhook.md ("Chaos") on a 2.x profile (3.0: chaos-flood-kill.test.ts).
floodTest('2.20', 11);
