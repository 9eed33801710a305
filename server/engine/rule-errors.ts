/** Errors the engine throws; each carries a path inside the rule (or vars file) so callers can point at a line. */

export type RulePath = Array<string | number>;

/** A rule that passed the JSON schema but cannot be compiled (bad regex, template, or semantics). */
export class RuleCompileError extends Error {
  readonly path: RulePath;
  constructor(path: RulePath, message: string) {
    super(message);
    this.name = 'RuleCompileError';
    this.path = path;
  }
}

/** A template that failed to parse or render; `path` is where it sits (rule path or vars key path). */
export class TemplateError extends Error {
  readonly path: RulePath;
  /** True when rendering ran out of its time budget: the trace status is `timeout`, not a plain error. */
  readonly timeout: boolean;
  /** The variable a render stopped at because it does not exist (`total` for `{{ total.amount }}`). */
  readonly undefinedName: string | null;
  constructor(path: RulePath, message: string, timeout = false, undefinedName: string | null = null) {
    super(message);
    this.name = 'TemplateError';
    this.path = path;
    this.timeout = timeout;
    this.undefinedName = undefinedName;
  }
}

/**
 * Whether a render stopped at one of `names` because it has no value: that means "not found" (a default applies,
 * a field is kept); any other failure is the template's own error.
 */
export function stoppedAtMissing(err: unknown, names: readonly string[]): boolean {
  return err instanceof TemplateError && err.undefinedName !== null && names.includes(err.undefinedName);
}

/** A value that could not be converted (a date that is no date, a money amount that is no number). */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** Formats a path as `when/all/1/content` for traces and messages. */
export function formatPath(path: RulePath): string {
  return path.join('/');
}
