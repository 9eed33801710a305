/** A small structured-enough logger; injectable so tests stay quiet and can read what was logged. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

type Level = 'info' | 'warn' | 'error';

/** One message, one line: CR/LF from a dms error or a request path cannot forge further log lines. */
export function escapeLineBreaks(message: string): string {
  return message.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

export function createConsoleLogger(): Logger {
  const write = (level: Level) => (message: string) => {
    const line = `${new Date().toISOString()} ${level.padEnd(5)} ${escapeLineBreaks(message)}\n`;
    (level === 'info' ? process.stdout : process.stderr).write(line);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

/** Keeps lines in memory; tests assert on them (e.g. that no secret was logged). */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: Level) => (message: string) => void lines.push(`${level} ${escapeLineBreaks(message)}`);
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}
