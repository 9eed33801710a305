/** The one error model: every error a person may see carries an HTTP status and an actionable message. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Sign in first, or send a valid bearer token.') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

/** The request named a Host this service does not answer to (DNS-rebinding defence). */
export class MisdirectedRequestError extends AppError {
  constructor(message: string) {
    super(421, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, message);
  }
}

/** One problem of a file: where it starts (1-based) and where its underline ends (exclusive column). */
export interface FileProblem {
  message: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

/**
 * Content that fails YAML parsing, schema or rule validation; `line`/`column` are 1-based and name the first
 * problem, `problems` lists every problem found (the API answers them all, so the editor can show them at once).
 */
export class ValidationError extends AppError {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
    readonly problems: readonly FileProblem[] = [],
  ) {
    super(422, message);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** The dms (or another upstream) failed or could not be reached. */
export class UpstreamError extends AppError {
  constructor(message: string) {
    super(502, message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}
