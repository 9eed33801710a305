/** A small structured logger; injectable so tests stay quiet and can read what was logged. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type Level = 'info' | 'warn' | 'error';

/** Facts besides the message (an id, a stack); an Error value is written as its name, message and stack. */
export type LogFields = Record<string, unknown>;

/** One message, one line: CR/LF from a dms error or a request path cannot forge further log lines. */
export function escapeLineBreaks(message: string): string {
  return message.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

const RESERVED = new Set(['time', 'level', 'msg']);

function plain(value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

/** The log file's line: one JSON object, `{time, level, msg, ...fields}`; JSON escapes line breaks itself. */
export function jsonLine(level: Level, message: string, fields: LogFields = {}, now = new Date()): string {
  const record: Record<string, unknown> = { time: now.toISOString(), level, msg: message };
  for (const [key, value] of Object.entries(fields)) record[RESERVED.has(key) ? `field_${key}` : key] = plain(value);
  return `${JSON.stringify(record)}\n`;
}

/** The console's line, for a person: `time level message key=value …`, on one line. */
export function textLine(level: Level, message: string, fields: LogFields = {}, now = new Date()): string {
  const extra = Object.entries(fields)
    .map(([key, value]) => {
      const shown = plain(value);
      return ` ${key}=${typeof shown === 'string' ? shown : JSON.stringify(shown)}`;
    })
    .join('');
  return `${now.toISOString()} ${level.padEnd(5)} ${escapeLineBreaks(message + extra)}\n`;
}

export function createConsoleLogger(): Logger {
  const write = (level: Level) => (message: string, fields?: LogFields) => {
    (level === 'info' ? process.stdout : process.stderr).write(textLine(level, message, fields));
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

/** One logged call as the memory logger keeps it. */
export interface LogRecord {
  level: Level;
  message: string;
  fields?: LogFields;
}

/** Keeps lines (`level message`) and records in memory; tests assert on them (e.g. that no secret was logged). */
export function createMemoryLogger(): Logger & { lines: string[]; records: LogRecord[] } {
  const lines: string[] = [];
  const records: LogRecord[] = [];
  const push = (level: Level) => (message: string, fields?: LogFields) => {
    lines.push(`${level} ${escapeLineBreaks(message)}`);
    records.push({ level, message, ...(fields ? { fields } : {}) });
  };
  return { lines, records, info: push('info'), warn: push('warn'), error: push('error') };
}
