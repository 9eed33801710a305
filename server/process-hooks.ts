import { errorMessage } from './error-message.js';
import type { Logger } from './log.js';

/** The part of `process` the hooks use (tests hand in an EventEmitter). */
export interface ProcessEvents {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'uncaughtExceptionMonitor', listener: (err: Error, origin: string) => void): unknown;
  off(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  off(event: 'uncaughtExceptionMonitor', listener: (err: Error, origin: string) => void): unknown;
}

/**
 * Puts what no code handled into the service log, which is all the desktop app has (its stderr goes nowhere).
 * A rejected promise nobody awaited is logged and the service goes on: one forgotten `await` in a background
 * task must not stop the rules for everyone. An uncaught exception is logged by the monitor hook, which does
 * not change what happens next: Node still stops the process (exit code 1), Electron still shows its dialog.
 * Returns a function that removes the hooks.
 */
export function logUncaught(logger: Logger, proc: ProcessEvents = process): () => void {
  const onRejection = (reason: unknown) => {
    logger.error(`unhandled promise rejection: ${errorMessage(reason)}`, { stack: stackOf(reason) });
  };
  const onException = (err: Error, origin: string) => {
    logger.error(`uncaught exception (${origin}): ${errorMessage(err)}`, { stack: stackOf(err) });
  };
  proc.on('unhandledRejection', onRejection);
  proc.on('uncaughtExceptionMonitor', onException);
  return () => {
    proc.off('unhandledRejection', onRejection);
    proc.off('uncaughtExceptionMonitor', onException);
  };
}

function stackOf(value: unknown): string | null {
  return value instanceof Error ? (value.stack ?? null) : null;
}
