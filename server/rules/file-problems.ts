import { ValidationError, type FileProblem } from '../app-errors.js';

/** A place in a file, 1-based; with an end (exclusive), the exact stretch an editor underlines. */
export interface Position {
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
}

/** A problem at a place; without a known end, the underline covers one character. */
export function problemAt(position: Position, message: string): FileProblem {
  return {
    message,
    line: position.line,
    column: position.column,
    end_line: position.endLine ?? position.line,
    end_column: position.endColumn ?? position.column + 1,
  };
}

/** A file's problems as one error, with the warnings the same check found (a draft or check answer shows both). */
export class FileValidationError extends ValidationError {
  constructor(
    message: string,
    line: number,
    column: number,
    problems: readonly FileProblem[],
    readonly warnings: readonly string[] = [],
  ) {
    super(message, line, column, problems);
  }
}

/**
 * Every problem found in one file as one error: the message names the first (as "line 3, column 5: …") and how
 * many more there are; `problems` lists them all in file order.
 */
export function problemsError(problems: FileProblem[], warnings: readonly string[] = []): FileValidationError {
  const sorted = [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
  const [first] = sorted;
  const more = sorted.length - 1;
  const suffix = more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'} in this file)` : '';
  return new FileValidationError(
    `line ${first.line}, column ${first.column}: ${first.message}${suffix}`,
    first.line,
    first.column,
    sorted,
    warnings,
  );
}

/** "line 3, column 5: message", with line/column on the error for the API body. */
export function positionedError(position: Position, message: string): ValidationError {
  return problemsError([problemAt(position, message)]);
}

/** Collects problems of one stage; `throwIfAny` ends validation with all of them. */
export class ProblemList {
  readonly items: FileProblem[] = [];
  add(position: Position, message: string): void {
    this.push(problemAt(position, message));
  }
  /** Adds a problem unless the same message already stands at the same place. */
  push(problem: FileProblem): void {
    const same = (p: FileProblem) =>
      p.line === problem.line && p.column === problem.column && p.message === problem.message;
    if (!this.items.some(same)) this.items.push(problem);
  }
  /** Keeps the problems a ValidationError carries (a stage that still throws), or rethrows anything else. */
  addError(err: unknown): void {
    if (!(err instanceof ValidationError)) throw err;
    if (err.problems.length > 0) err.problems.forEach((p) => this.push(p));
    else this.push(problemAt({ line: err.line ?? 1, column: err.column ?? 1 }, err.message));
  }
  /** Throws every problem as one error, carrying `warnings` along, when there is any. */
  throwIfAny(warnings: readonly string[] = []): void {
    if (this.items.length > 0) throw problemsError(this.items, warnings);
  }
}
