// Problems of a rule file as the editor shows them: read from the server's answers (a save, a draft, a check),
// and what "Run tests" makes of a check. Pure, so unit tests run it in node.
import { ApiError } from '../api.js';
import type { FileProblem, RuleTestReport, SaveResult } from '../types.js';

/** A problem as the editor shows it: in the list and underlined from its start to its end (exclusive). */
export interface Problem {
  message: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  severity: 'error' | 'warning';
}

export interface CheckResult {
  validation: SaveResult['validation'];
  tests: RuleTestReport[];
}

export interface TestBadge {
  text: string;
  kind: 'ok' | 'error';
}

/** Every problem a save answer reports: a refused publish, or a draft's non-blocking validation and warnings. */
export function problemsOf(result: SaveResult | ApiError): Problem[] {
  if (result instanceof ApiError) {
    if (result.problems?.length) return result.problems.map((p) => fromServer(p, 'error'));
    return [{ message: result.message, line: result.line, column: result.column, severity: 'error' }];
  }
  const out: Problem[] = [];
  const v = result.validation;
  if (v && v.ok === false && v.problems?.length) out.push(...v.problems.map((p) => fromServer(p, 'error')));
  else if (v && v.ok === false && v.error)
    out.push({ message: v.error, line: v.line, column: v.column, severity: 'error' });
  else if (result.error)
    out.push({ message: result.error, line: result.line, column: result.column, severity: 'error' });
  for (const w of [...(result.warnings ?? []), ...(v?.warnings ?? [])]) {
    out.push(typeof w === 'string' ? warningOf(w) : { ...w, severity: 'warning' });
  }
  return inFileOrder(out);
}

/** A warning the server placed as "line 3, column 5: …" is listed and underlined at that place. */
function warningOf(text: string): Problem {
  const m = /^line (\d+), column (\d+): ([\s\S]*)$/.exec(text);
  if (!m) return { message: text, severity: 'warning' };
  return { message: m[3], line: Number(m[1]), column: Number(m[2]), severity: 'warning' };
}

/**
 * Errors and warnings together by line and column, as the file reads; those about the whole file come last.
 * The sort is stable: problems at one place keep the order the server gave.
 */
function inFileOrder(problems: Problem[]): Problem[] {
  const key = (p: Problem) => (p.line === undefined ? Number.MAX_VALUE : p.line * 100_000 + (p.column ?? 0));
  return problems.sort((a, b) => key(a) - key(b));
}

function fromServer(p: FileProblem, severity: Problem['severity']): Problem {
  return { message: p.message, line: p.line, column: p.column, endLine: p.end_line, endColumn: p.end_column, severity };
}

/**
 * What "Run tests" shows for a check answer: each failing test at its own line (the validation names only the
 * first), the other problems, and the badge; on text that does not validate, where to fix it first.
 */
export function testOutcome(result: CheckResult): { problems: Problem[]; badge: TestBadge } {
  const problems = problemsOf({ ok: true, validation: result.validation });
  const blocking =
    result.validation?.ok === false && result.tests.length === 0
      ? problems.find((p) => p.severity === 'error')
      : undefined;
  if (blocking) {
    const what = /yaml/i.test(blocking.message) ? 'the YAML' : 'the error';
    const where = blocking.line ? ` (line ${blocking.line})` : '';
    return { problems, badge: { text: `Tests not run: fix ${what} first${where}`, kind: 'error' } };
  }
  const failed = result.tests.filter((t) => !t.ok);
  const others = problems.filter((p) => !failed.some((t) => p.line === t.line) && !/failed its test/.test(p.message));
  const passed = result.tests.length - failed.length;
  const n = result.tests.length;
  const listed = [
    ...failed.map((t): Problem => ({
      message: `${t.rule_id}: ${t.message}`,
      line: t.line,
      column: t.column,
      severity: 'error',
    })),
    ...others,
  ];
  const counts = `${n} test${n === 1 ? '' : 's'}: ${passed} passed`;
  // The tests of the sound rules ran, but the file does not save until its other errors are fixed.
  const unsaved = result.validation?.ok === false ? others.find((p) => p.severity === 'error') : undefined;
  if (unsaved) {
    const where = unsaved.line ? ` (line ${unsaved.line})` : '';
    return { problems: listed, badge: { text: `${counts}; fix the error first${where}`, kind: 'error' } };
  }
  return {
    problems: listed,
    badge: {
      text:
        n === 0
          ? 'No tests in this file: add examples under tests:.'
          : `${counts}${failed.length ? `, ${failed.length} failed` : ''}`,
      kind: failed.length ? 'error' : 'ok',
    },
  };
}
