// The service log as a file in the data dir, for the desktop app (it has no console a person sees): one JSON
// object per line (`{time, level, msg, ...fields}`), rotated by size, and readable by the Web UI's
// "Download the service log".
import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError } from './app-errors.js';
import { jsonLine, type Level, type LogFields, type Logger } from './log.js';

/** Where the service log lives under a data dir. */
export function serviceLogFile(dataDir: string): string {
  return path.join(dataDir, 'logs', 'service.log');
}

export interface FileLoggerOptions {
  /** Rotate when the file would grow past this (default 1 MB). */
  maxBytes?: number;
  /** Rotated files kept besides the current one: service.log.1 … .N (default 3). */
  keep?: number;
  /** Also log here (the console). */
  also?: Logger;
}

/** A logger that appends to `file`, rotating it by size; a write that fails never breaks the service. */
export function createFileLogger(file: string, options: FileLoggerOptions = {}): Logger {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const keep = options.keep ?? 3;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let size = fs.existsSync(file) ? fs.statSync(file).size : 0;

  function rotate(): void {
    fs.rmSync(`${file}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--)
      if (fs.existsSync(`${file}.${i}`)) fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    if (keep > 0) fs.renameSync(file, `${file}.1`);
    else fs.rmSync(file, { force: true });
    size = 0;
  }

  const write = (level: Level) => (message: string, fields?: LogFields) => {
    options.also?.[level](message, fields);
    const line = jsonLine(level, message, fields);
    try {
      if (size > 0 && size + Buffer.byteLength(line) > maxBytes) rotate();
      fs.appendFileSync(file, line, { mode: 0o600 });
      size += Buffer.byteLength(line);
    } catch {
      // A full disk or a removed folder must not stop the service; the console still has the line.
    }
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

/** The service log file as the Web UI downloads it. */
export interface ServiceLog {
  /** The newest part of the log; not found when the service logs to its console only. */
  read(): string;
}

export function serviceLog(dataDir: string): ServiceLog {
  return { read: () => readServiceLog(dataDir) };
}

/** The newest part of the service log (at most `maxBytes`), or a not-found error saying where the log goes instead. */
export function readServiceLog(dataDir: string, maxBytes = 2 * 1024 * 1024): string {
  const file = serviceLogFile(dataDir);
  if (!fs.existsSync(file)) {
    throw new NotFoundError(
      `This service writes no log file (${file}): started with npm start it logs to its console; the desktop app writes that file.`,
    );
  }
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
