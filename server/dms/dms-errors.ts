// The dms layer's own errors. They know nothing of HTTP: the edge (server/http/middleware/error-handler.ts)
// turns them into a status (not found 404, a value or query the dms cannot take 400, anything else 502).

/** The dms failed, refused or could not be reached. `request` is `METHOD /path/` so a person can retry it by hand. */
export class DmsError extends Error {
  constructor(
    message: string,
    readonly request: string,
    /** HTTP status the dms answered, or null when no answer came (timeout, refused, dropped). */
    readonly dmsStatus: number | null = null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The dms says the object does not exist (or is not visible to this token). */
export class DmsNotFoundError extends Error {
  constructor(
    message: string,
    readonly request: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A value cannot be written to a dms field (custom field data types, docs/dms.md). */
export class DmsValueError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A document query the client refuses to send (an unknown filter Paperless would silently ignore). */
export class DmsQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
