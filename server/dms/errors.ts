import { BadRequestError, NotFoundError, UpstreamError } from '../errors.js';

/** The dms failed, refused or could not be reached. `request` is `METHOD /path/` so a person can retry it by hand. */
export class DmsError extends UpstreamError {
  constructor(
    message: string,
    readonly request: string,
    /** HTTP status the dms answered, or null when no answer came (timeout, refused, dropped). */
    readonly dmsStatus: number | null = null,
  ) {
    super(message);
  }
}

/** The dms says the object does not exist (or is not visible to this token). */
export class DmsNotFoundError extends NotFoundError {
  constructor(
    message: string,
    readonly request: string,
  ) {
    super(message);
  }
}

/** A value cannot be written to a dms field (custom field data types, §6 of the Paperless reference). */
export class DmsValueError extends BadRequestError {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}
