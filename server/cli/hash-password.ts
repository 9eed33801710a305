import { createInterface } from 'node:readline/promises';
import { hashPassword } from '../auth/passwords.js';

/** `npm run hash-password`: prints an scrypt hash for SVC_ADMIN_PASSWORD_HASH. Reads the password from stdin. */
async function main(): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  process.stderr.write('Password (input is read from standard input): ');
  const password = (await rl.question('')).replace(/\r?\n$/, '');
  rl.close();
  if (password.length < 8) {
    process.stderr.write('\nThe password must have at least 8 characters.\n');
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${hashPassword(password)}\n`);
}

void main();
