import * as z from 'zod';
import { CORPORA } from '#law/model.ts';
import { isCalendarDate } from '#shared/dates.ts';
import { COVERAGES, type FormatRecordSource, LEVELS, LIMIT_MEASURES, TYPEFACE_TOKENS, VALUE_FIELDS } from './model.ts';

/**
 * Records are authored as JSON files, one per court and effective period. A file may `extend` a shared reading
 * (a file whose name starts with `_`, e.g. the FRAP reading every court of appeals shares): its fields are the
 * base's, overridden field by field, with `unresolved` joined. A court's file may extend a list of shared readings
 * (one record per period, each `<court>-<effectiveFrom>`), and a shared reading may extend another.
 */
export interface AuthoredFile {
  /** File name, for messages. */
  file: string;
  content: unknown;
}

export interface RecordProblem {
  file: string;
  /** The field at fault, as a path (`limits[2].quote`), or '' for the whole file. */
  field: string;
  message: string;
  /**
   * The rule (`us/rules frap-32`) the record reads and the corpus does not hold (a data dir loaded in part, a
   * deployment without that rule set): nothing is wrong with the record, it waits for its rules (splitRefusals).
   */
  notCarried?: string;
}

const quoted = { ruleKey: z.string().min(1), quote: z.string().min(8) };
const nullableNumber = z.number().positive().nullable();

const FaceMinimum = z.strictObject({
  face: z.string().min(1),
  minSizePt: nullableNumber.default(null),
  maxCharsPerInch: nullableNumber.default(null),
  ...quoted,
});
const Typeface = z.strictObject({
  allowed: z.union([z.array(z.string().min(1)).min(1), z.enum(TYPEFACE_TOKENS)]).nullable(),
  prohibited: z.array(z.string().min(1)).default([]),
  faceMinimums: z.array(FaceMinimum).default([]),
  maxCharsPerInch: nullableNumber.default(null),
});
const LengthLimit = z
  .strictObject({
    document: z.string().min(1),
    basis: z.enum(LIMIT_MEASURES),
    pages: z.number().int().positive().nullable().default(null),
    words: z.number().int().positive().nullable().default(null),
    lines: z.number().int().positive().nullable().default(null),
    note: z.string().nullable().default(null),
    ...quoted,
  })
  .refine((l) => LIMIT_MEASURES.every((m) => (m === l.basis) === (l[m] !== null)), {
    message: 'a limit gives exactly one number, in the field its basis names',
  });
const Certificate = z.strictObject({
  required: z.boolean(),
  ruleKey: z.string().nullable().default(null),
  contents: z.string().nullable().default(null),
  appliesTo: z.string().nullable().default(null),
  quote: z.string().nullable().default(null),
});
const BasisEntry = z.strictObject({
  quotes: z.array(z.strictObject(quoted)).default([]),
  reading: z.string().min(1).nullable().default(null),
});
const RuleCitation = z.strictObject({
  key: z.string().min(1),
  corpus: z.enum(CORPORA),
  pin: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a pin is sha256: and 64 hex digits (the contentHash of the version read)'),
  note: z.string().nullable().default(null),
});

const fields = {
  id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'an id is lowercase letters, digits, dots and hyphens'),
  jurisdiction: z.string().min(1),
  court: z.string().min(1),
  courtName: z.string().min(1),
  level: z.enum(LEVELS),
  coverage: z.enum(COVERAGES),
  effectiveFrom: z.string().refine(isCalendarDate, 'effectiveFrom is a calendar date YYYY-MM-DD'),
  effectiveUntil: z.string().refine(isCalendarDate, 'effectiveUntil is a calendar date YYYY-MM-DD').nullable().optional(),
  governingRuleKey: z.string().min(1),
  rules: z.array(RuleCitation).min(1),
  typeface: Typeface.nullable(),
  minSizePt: nullableNumber,
  maxSizePt: nullableNumber,
  footnoteMinSizePt: nullableNumber,
  lineSpacing: z.string().min(1).nullable(),
  margins: z
    .partialRecord(z.enum(['all', 'top', 'right', 'bottom', 'left']), z.number().positive())
    .refine((m) => Object.keys(m).length > 0, 'margins name at least one side')
    .nullable(),
  paperSize: z.string().min(1).nullable(),
  limits: z.array(LengthLimit),
  certificateOfCompliance: Certificate.nullable(),
  basis: z.partialRecord(z.enum([...VALUE_FIELDS, 'effectiveFrom', 'effectiveUntil']), BasisEntry),
  note: z.string().min(1),
  unresolved: z.array(z.string().min(1)),
};

const RecordFile = z.strictObject(fields);
/**
 * A base or a file that extends one: any subset of the fields, plus `extends`: a shared reading, or a list of them
 * (one record per reading, for a court whose rules were read period by period).
 */
const PartialFile = z.strictObject({
  ...z.strictObject(fields).partial().shape,
  extends: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
});
type PartialRecordFile = z.output<typeof PartialFile>;

const baseName = (file: string) => file.replace(/^.*\//, '').replace(/\.json$/, '');
const pathOf = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');

/** `over`'s fields override `base`'s, field by field; `unresolved` lists are joined, the base's first. */
function overlay(base: Record<string, unknown>, over: PartialRecordFile): Record<string, unknown> {
  const { extends: _e, ...given } = over;
  // Only the fields the file gives override the base's.
  const own = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as PartialRecordFile;
  const baseUnresolved = (base.unresolved as string[] | undefined) ?? [];
  return { ...base, ...own, unresolved: [...baseUnresolved, ...(own.unresolved ?? [])] };
}

/**
 * Parses the authored files into records (bases are not records). A shared reading may itself extend another (a
 * later period that changes only its dates and pins). Problems name the file and the field.
 */
export function parseRecordFiles(files: readonly AuthoredFile[]): {
  records: { file: string; record: FormatRecordSource }[];
  problems: RecordProblem[];
} {
  const problems: RecordProblem[] = [];
  const partials = new Map<string, { file: string; data: PartialRecordFile }>();
  const unreadable = new Set<string>();
  for (const { file, content } of files) {
    const parsed = PartialFile.safeParse(content);
    if (!parsed.success) {
      unreadable.add(baseName(file));
      for (const issue of parsed.error.issues) problems.push({ file, field: pathOf(issue.path), message: issue.message });
      continue;
    }
    partials.set(baseName(file), { file, data: parsed.data });
  }

  /** A shared reading with what it extends resolved, or why it cannot be. */
  const resolved = new Map<string, Record<string, unknown> | string>();
  const resolveBase = (name: string, chain: readonly string[]): Record<string, unknown> | string => {
    const done = resolved.get(name);
    if (done !== undefined) return done;
    const base = partials.get(name);
    let out: Record<string, unknown> | string;
    if (!base || !name.startsWith('_')) {
      out = unreadable.has(name)
        ? 'a shared reading that was refused (see its problems)'
        : 'not a shared reading among the record files (names start with _)';
    } else if (chain.includes(name)) {
      out = `a shared reading that extends itself (${[...chain, name].join(' → ')})`;
    } else if (base.data.extends === undefined) {
      out = overlay({}, base.data);
    } else if (Array.isArray(base.data.extends)) {
      out = 'a shared reading that extends a list (only a court’s file may)';
    } else {
      const parent = resolveBase(base.data.extends, [...chain, name]);
      out = typeof parent === 'string' ? `extends '${base.data.extends}': ${parent}` : overlay(parent, base.data);
    }
    resolved.set(name, out);
    return out;
  };

  const records: { file: string; record: FormatRecordSource }[] = [];
  const addRecord = (file: string, merged: Record<string, unknown>) => {
    const parsed = RecordFile.safeParse(merged);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push({ file, field: pathOf(issue.path), message: issue.message });
      return;
    }
    records.push({ file, record: { ...parsed.data, effectiveUntil: parsed.data.effectiveUntil ?? null } as FormatRecordSource });
  };
  for (const [name, { file, data }] of partials) {
    if (name.startsWith('_')) continue;
    if (data.extends === undefined) {
      addRecord(file, { ...data });
      continue;
    }
    const list = Array.isArray(data.extends);
    if (list && data.id !== undefined) {
      problems.push({
        file,
        field: 'id',
        message: 'a file that extends a list of readings gives no id: each record is <court>-<effectiveFrom>',
      });
      continue;
    }
    for (const baseNameGiven of list ? (data.extends as string[]) : [data.extends as string]) {
      const base = resolveBase(baseNameGiven, []);
      if (typeof base === 'string') {
        problems.push({ file, field: 'extends', message: `extends '${baseNameGiven}': ${base}` });
        continue;
      }
      const merged = overlay(base, data);
      if (list) merged.id = `${String(merged.court)}-${String(merged.effectiveFrom)}`;
      addRecord(list ? `${file}#${String(merged.id)}` : file, merged);
    }
  }
  const seen = new Map<string, string>();
  for (const { file, record } of records) {
    const other = seen.get(record.id);
    if (other) problems.push({ file, field: 'id', message: `id '${record.id}' is also the id of ${other}` });
    seen.set(record.id, file);
  }
  return { records, problems };
}
