import type { z } from 'zod';
import { CORPORA } from '#law/model.ts';
import { AppError, type ErrorCode } from '#shared/errors.ts';
import { thousands } from '#shared/thousands.ts';

/** Error code per field for an unacceptable value (a route's `fieldCodes`). */
export type FieldCodes = Partial<Record<string, ErrorCode>>;

/** What a valid value looks like, per error code, for the message. */
const EXPECTED: Partial<Record<ErrorCode, string>> = {
  bad_as_of: 'a calendar date written YYYY-MM-DD',
  bad_corpus: `one of ${CORPORA.join(', ')}`,
  bad_limit: 'a positive integer',
  bad_level: 'one of the four court levels',
  bad_fallback: "'none' or 'courtlistener'",
  bad_id: `a positive integer no larger than ${thousands(Number.MAX_SAFE_INTEGER)}`,
};

/** The code for an unacceptable value of `field`: its own `bad_…` code where it has one, else `bad_parameter`. */
export function malformedCode(field: string, fieldCodes: FieldCodes = {}): ErrorCode {
  const own = fieldCodes[field];
  return own?.startsWith('bad_') ? own : 'bad_parameter';
}

const PREVIEW_CHARS = 60;

/** A value as a message quotes it: a string in quotes, anything cut to 60 characters, with its length when cut. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const cut = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
  const quoted = typeof value === 'string' ? `'${cut}'` : cut;
  return text.length > PREVIEW_CHARS ? `${quoted} (${thousands(text.length)} characters)` : quoted;
}

/** `citations[0].reporter` */
export const pathName = (path: readonly PropertyKey[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('') || 'input';

export const valueAt = (value: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((v, key) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined), value);

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
};

/** What an issue says a valid value is, in words (zod's own messages read "Invalid input"). */
function expectation(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_NAMES[issue.expected] ?? `a value of type ${issue.expected}`;
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}`;
    case 'too_big':
    case 'too_small': {
      const bound = thousands(Number(issue.code === 'too_big' ? issue.maximum : issue.minimum));
      const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : '';
      if (issue.code === 'too_small' && issue.inclusive === false) return `more than ${bound}${unit}`;
      return `${issue.code === 'too_big' ? 'at most' : 'at least'} ${bound}${unit}`;
    }
    case 'invalid_format':
      return issue.format === 'regex' ? `text of the form ${issue.pattern}` : `a valid ${issue.format}`;
    case 'invalid_union':
      return [...new Set(issue.errors.map((alternative) => (alternative[0] ? expectation(alternative[0]) : 'valid')))].join(' or ');
    default:
      return issue.message;
  }
}

/**
 * The issue that says most: a union none of whose alternatives matched reports the alternative whose shape the value
 * had (an object missing one of its fields), at that field's path; otherwise the union itself.
 */
function deepest(issue: z.core.$ZodIssue, path: readonly PropertyKey[]): { issue: z.core.$ZodIssue; path: readonly PropertyKey[] } {
  if (issue.code !== 'invalid_union') return { issue, path };
  const inner = issue.errors.map((alternative) => alternative[0]).find((i) => i !== undefined && i.path.length > 0);
  return inner ? deepest(inner, [...path, ...inner.path]) : { issue, path };
}

export const isEmpty = (value: unknown) => value === null || (typeof value === 'string' && value.trim() === '');
const isMissing = (value: unknown) => value === undefined || isEmpty(value);

/**
 * Map zod's issues to the spec's codes: missing fields first (all of them named), then the first invalid field, with
 * its own code (bad_as_of …) or bad_parameter, saying what was expected and what was given.
 */
export function toInputError(issues: readonly z.core.$ZodIssue[], params: Record<string, unknown>, fieldCodes: FieldCodes = {}): AppError {
  const fields = issues.map((i) => String(i.path[0] ?? ''));
  // An empty value of a field with its own code is a malformed value (`asOf=` is bad_as_of); an absent one is missing.
  const missing = [
    ...new Set(fields.filter((f) => params[f] === undefined || (isMissing(params[f]) && !fieldCodes[f]?.startsWith('bad_')))),
  ];
  if (missing.length) return new AppError('missing_fields', `Missing required parameter(s): ${missing.join(', ')}.`, { fields: missing });
  const field = fields[0]!;
  const first = issues[0]!;
  if (first.code === 'custom') {
    // A schema's own rule (a refinement) says in its message what is wrong, unless its field's code has stock wording.
    const code = fieldCodes[field] ?? 'missing_fields';
    const expected = EXPECTED[code];
    if (!expected) return new AppError(code, first.message, { field });
    return new AppError(code, `${pathName(first.path)} must be ${expected} (got ${shown(valueAt(params, first.path))}).`, { field });
  }
  const { issue, path } = deepest(first, first.path);
  const code = issue.code === 'too_big' && fieldCodes[field] === 'too_large' ? 'too_large' : malformedCode(field, fieldCodes);
  const expected = (issue.code !== 'too_big' && EXPECTED[code]) || expectation(issue);
  return new AppError(code, `${pathName(path)} must be ${expected} (got ${shown(valueAt(params, path))}).`, { field });
}
