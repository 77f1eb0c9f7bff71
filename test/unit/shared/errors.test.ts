import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '#http/error-status.ts';
import { AppError, type ErrorCode, FAILURE_CODES } from '#shared/errors.ts';

describe('AppError', () => {
  it('names as failures exactly the codes answered with a 5xx', () => {
    const fiveHundreds = Object.entries(ERROR_STATUS)
      .filter(([, status]) => status >= 500)
      .map(([code]) => code)
      .sort();
    expect([...FAILURE_CODES].sort()).toEqual(fiveHundreds);
  });

  it('keeps a stack for a failure of the service, none for an answer', () => {
    const failure = new AppError('statutes_unavailable', 'down');
    expect(failure.stack).toContain('errors.test.ts');
    const answer = new AppError('no_edition_on_file', 'nothing in force');
    expect(answer.stack).not.toContain('errors.test.ts');
    expect(answer.stack).toContain('nothing in force');
  });

  it('leaves the stack depth of every other error as it was', () => {
    const before = Error.stackTraceLimit;
    new AppError('bad_as_of' as ErrorCode, 'x');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('plain').stack).toContain('errors.test.ts');
  });

  it('carries its code, details and headers', () => {
    const err = new AppError('rate_limited', 'slow down', { limit: 120 }, { 'retry-after': '60' });
    expect(err).toBeInstanceOf(Error);
    expect([err.name, err.code, err.message, err.details, err.headers]).toEqual([
      'AppError',
      'rate_limited',
      'slow down',
      { limit: 120 },
      { 'retry-after': '60' },
    ]);
    expect(new AppError('not_found', 'gone').details).toEqual({});
  });
});
