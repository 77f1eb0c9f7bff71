/**
 * The filing-format registry against the real adapters (DynamoDB adapter on dynalite, SQLite search) holding the
 * bundled FRAP (the 2024 text and the Title 28 Appendix editions 2007-2012) and North Dakota rules: every bundled
 * record validates; a wrong quote, a wrong pin, a pin out of its period, a missing rule are refused with messages
 * naming file, field and quote; the records in force on a date are answered; a record goes stale when a changed rule
 * is ingested, with no change to the record. The changed rules are test fixtures made here (a copy of the bundled
 * FRAP with one edit), never bundled.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthoredFile } from '#formats/authored.ts';
import { pinnedRow, pinnedRowsOf, type StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { BUNDLED_RECORD_FILES } from '#formats/records/index.ts';
import { checkFormatRecords, type FormatDeps, listFormats, loadFormatRecords } from '#formats/registry.ts';
import { splitRefusals, waitingLine } from '#formats/validate.ts';
import { readAppendixText } from '#ingest/appendix-text.ts';
import { ingestEdition } from '#ingest/engine.ts';
import { runIngest } from '#ingest/jobs.ts';
import { type EmbeddedStores, openEmbeddedStores } from '#local/embedded-stores.ts';
import { AppError } from '#shared/errors.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { FORMAT_STORE_SCHEMA, SqliteFormatStore } from '#stores/sqlite/format-store.ts';
import { useDynaliteTables } from './dynalite-tables.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
const TITLE_28_APPENDIX = fileURLToPath(new URL('../../data/rules/us-code-appendix-text/', import.meta.url));
const RETRIEVED_AT = '2026-11-22T07:25:00Z';

let stores: EmbeddedStores;
let clock = new Date('2026-11-23T12:00:00Z');
let deps: FormatDeps;
let work: string;

const ingestRules = (set: 'frap' | 'ndrappp', path: string, date?: string) =>
  runIngest({ ...stores, now: () => clock }, { kind: 'rules', set, paths: [path], retrievedAt: RETRIEVED_AT, ...(date && { date }) });

const fileNamed = (name: string): AuthoredFile => structuredClone(BUNDLED_RECORD_FILES.find((f) => f.file === name)!);
const ca9 = () => fileNamed('ca9.json');
const nd = () => fileNamed('nd-2026-03-07.json');
/** The bundled files with one replaced. */
const withFile = (file: AuthoredFile) => [...BUNDLED_RECORD_FILES.filter((f) => f.file !== file.file), file];

const dynamo = useDynaliteTables('formats');
let dynamoOpsTable: string;

beforeAll(async () => {
  dynamoOpsTable = (await dynamo.fresh()).ops;
  stores = await openEmbeddedStores(null);
  deps = { versions: stores.versions, formats: stores.formats, now: () => clock };
  await ingestRules('frap', join(SAMPLE, 'rules/frap'));
  await ingestRules('ndrappp', join(SAMPLE, 'rules/north-dakota-rap'));
  // The FRAP of the Title 28 Appendix editions 2007-2012 (their FRCP and FRE are not read by any record).
  const appendix = await readAppendixText([TITLE_28_APPENDIX], { retrievedAt: RETRIEVED_AT });
  for (const edition of appendix.filter((e) => e.collection === 'frap')) await ingestEdition({ ...stores, now: () => clock }, edition);
  work = await mkdtemp(join(tmpdir(), 'asof-formats-'));
});

/** The SQLite adapter's databases, one per test (in memory). */
const sqlite: SqliteDatabase[] = [];

afterAll(async () => {
  for (const db of sqlite) db.close();
  await stores.close();
  await rm(work, { recursive: true, force: true });
});

const adapters: [string, () => FormatStore][] = [
  ['the DynamoDB adapter on dynalite', () => new DynamoFormatStore(dynamo.doc, dynamoOpsTable)],
  ['the embedded caching adapter over SQLite', () => stores.formats],
  [
    'the SQLite adapter',
    () => {
      const db = SqliteDatabase.open(':memory:', { store: 'versions', schemas: [FORMAT_STORE_SCHEMA] });
      sqlite.push(db);
      return new SqliteFormatStore(db);
    },
  ],
];

describe.each(adapters)('FormatStore: %s', (_name, adapter) => {
  const stored = (id: string, loadedAt: string): StoredFormatRecord => ({
    record: { ...(BUNDLED_RECORD_FILES.find((f) => f.file === 'nd-2026-03-07.json')!.content as StoredFormatRecord['record']), id },
    file: `${id}.json`,
    digest: 'd',
    loadedAt,
    pinned: {},
  });

  it('puts, lists, replaces and deletes records by id', async () => {
    const store = adapter();
    const before = (await store.listRecords()).length;
    await store.putRecord(stored('contract-a', '2026-01-01T00:00:00.000Z'));
    await store.putRecord(stored('contract-b', '2026-01-01T00:00:00.000Z'));
    await store.putRecord(stored('contract-a', '2026-02-01T00:00:00.000Z'));
    const listed = (await store.listRecords()).filter((s) => s.record.id.startsWith('contract-'));
    expect(listed.map((s) => [s.record.id, s.loadedAt]).sort()).toEqual([
      ['contract-a', '2026-02-01T00:00:00.000Z'],
      ['contract-b', '2026-01-01T00:00:00.000Z'],
    ]);
    expect(listed[0]!.record.limits.length).toBeGreaterThan(0);
    await store.deleteRecord('contract-a');
    await store.deleteRecord('contract-b');
    await store.deleteRecord('never-there');
    expect((await store.listRecords()).length).toBe(before);
  });

  it('answers which rule versions a stored record was read from, through puts, replacements and deletes', async () => {
    const store = adapter();
    const base = stored('pins-a', '2026-01-01T00:00:00.000Z');
    const rows = pinnedRowsOf(base.record);
    const other = pinnedRow({ jurisdiction: 'nd', corpus: 'rules', key: 'ndrappp-999' }, `sha256:${'0'.repeat(64)}`);
    const pinned = async (row: string) => store.isPinned(row);
    expect(rows.length).toBeGreaterThan(1);
    // Rows no record names yet, bar those the loaded records may pin, are not pinned.
    expect(await pinned(other)).toBe(false);
    await store.putRecord(base);
    for (const row of rows) expect(await pinned(row)).toBe(true);
    expect(await pinned(other)).toBe(false);
    // A second record pinning the same rows and one more: the rows stay pinned while either holds them.
    const second = stored('pins-b', '2026-01-01T00:00:00.000Z');
    second.record.rules = [...second.record.rules, { ...second.record.rules[0]!, key: 'ndrappp-999', pin: `sha256:${'0'.repeat(64)}` }];
    await store.putRecord(second);
    expect(await pinned(other)).toBe(true);
    await store.deleteRecord('pins-a');
    for (const row of rows) expect(await pinned(row)).toBe(true);
    // Replaced by a version without the extra rule: the row it no longer names is unpinned.
    await store.putRecord(stored('pins-b', '2026-02-01T00:00:00.000Z'));
    expect(await pinned(other)).toBe(false);
    for (const row of rows) expect(await pinned(row)).toBe(true);
    await store.deleteRecord('pins-b');
    const stillLoaded = new Set((await store.listRecords()).flatMap((s) => pinnedRowsOf(s.record)));
    for (const row of rows) expect(await pinned(row)).toBe(stillLoaded.has(row));
    expect(await pinned(other)).toBe(false);
  });
});

describe('loading the bundled records', () => {
  it('validates every bundled record against the bundled rules and stores them', async () => {
    const report = await loadFormatRecords(deps, BUNDLED_RECORD_FILES);
    expect(report.refused).toEqual([]);
    expect(report.loaded.map((r) => r.id).sort()).toEqual(
      ['ca1', 'ca10', 'ca11', 'ca2', 'ca3', 'ca4', 'ca5', 'ca6', 'ca7', 'ca8', 'ca9', 'cadc', 'cafc']
        .flatMap((c) => ['2007-01-03', '2010-02-01', '2011-01-07', '2012-01-03', '2024-12-01'].map((d) => `${c}-${d}`))
        .concat('nd-2026-03-07')
        .sort(),
    );
    expect((await stores.formats.listRecords()).length).toBe(13 * 5 + 1);
  });

  it('keeps loadedAt when an unchanged record is loaded again', async () => {
    const first = await stores.formats.listRecords();
    clock = new Date(clock.getTime() + 60_000);
    const report = await loadFormatRecords(deps, BUNDLED_RECORD_FILES);
    expect(report.loaded.every((r) => r.unchanged)).toBe(true);
    expect((await stores.formats.listRecords()).map((s) => s.loadedAt).sort()).toEqual(first.map((s) => s.loadedAt).sort());
  });

  it('marks exactly the pinned rule versions as read by the registry', async () => {
    const rows = new Set((await stores.formats.listRecords()).flatMap((s) => pinnedRowsOf(s.record)));
    // Six FRAP rules of 2024, three North Dakota rules, and the 2007-2012 FRAP: seven rules, four of them in two texts.
    expect(rows.size).toBe(6 + 3 + 7 + 4);
    for (const row of rows) expect(await stores.formats.isPinned(row)).toBe(true);
    const frap32 = await stores.versions.findInForce({ jurisdiction: 'us', corpus: 'rules', key: 'frap-32' }, '2026-11-23');
    expect(await stores.formats.isPinned(pinnedRow(frap32!.citation, frap32!.provenance.contentHash))).toBe(true);
    const frap1 = await stores.versions.findInForce({ jurisdiction: 'us', corpus: 'rules', key: 'frap-1' }, '2026-11-23');
    expect(await stores.formats.isPinned(pinnedRow(frap1!.citation, frap1!.provenance.contentHash))).toBe(false);
  });
});

describe('validation refuses a record and says where', () => {
  const refusalOf = async (files: AuthoredFile[]) => (await checkFormatRecords(deps, files)).filter((c) => !c.valid);

  it('a quote that is not in the pinned rule text', async () => {
    const file = nd();
    const content = file.content as { limits: { quote: string }[] };
    content.limits[0]!.quote = 'A principal brief may not exceed 50 pages';
    const refused = await refusalOf(withFile(file));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.problems).toEqual([
      {
        file: 'nd-2026-03-07.json',
        field: 'limits[0].quote',
        message: `quote not found in the pinned text of 'ndrappp-32': "A principal brief may not exceed 50 pages"`,
      },
    ]);
  });

  it('a quote whose only difference is whitespace is accepted', async () => {
    const file = nd();
    const content = file.content as { limits: { quote: string }[] };
    content.limits[0]!.quote = content.limits[0]!.quote.replaceAll(' ', '\n   ');
    expect(await refusalOf(withFile(file))).toEqual([]);
  });

  it('a pin that is not the contentHash of any version of the rule', async () => {
    const file = nd();
    const content = file.content as { rules: { pin: string }[] };
    content.rules[1]!.pin = `sha256:${'0'.repeat(64)}`;
    const [refused] = await refusalOf(withFile(file));
    expect(refused!.problems).toHaveLength(1);
    expect(refused!.problems[0]).toMatchObject({ file: 'nd-2026-03-07.json', field: 'rules[1].pin' });
    expect(refused!.problems[0]!.message).toMatch(
      /no version of N\.D\.R\.App\.P\. 29 has contentHash sha256:0{64} \(on file: .*sha256:924ad7e6/,
    );
  });

  it('a rule key the corpus does not hold, and a quote from a rule the record does not cite', async () => {
    const file = ca9();
    const content = file.content as Record<string, unknown>;
    content.rules = [
      { key: 'frap-32', corpus: 'rules', pin: 'sha256:a9d55dc82014141a83af89f93c77fdfb43acfda5115c3f91fc4e5bfe812aa42e' },
      { key: 'frap-99', corpus: 'rules', pin: `sha256:${'1'.repeat(64)}` },
    ];
    const [refused] = await refusalOf(withFile(file));
    const fields = refused!.problems.map((p) => p.field);
    expect(fields).toContain('rules[1].key');
    expect(refused!.problems.find((p) => p.field === 'rules[1].key')!.message).toBe("rule 'frap-99' (us/rules) is not in the corpus");
    // The limits read from Rules 27, 28.1, 29 and 40 now cite rules the record does not list.
    const stray = refused!.problems.find((p) => p.field.startsWith('limits['))!;
    expect(stray.message).toMatch(/^quotes rule 'frap-28\.1', which is not among the record's rules: "/);
  });

  it('a value without a quote, and a null without a reason', async () => {
    const file = nd();
    const content = file.content as { basis: Record<string, unknown>; maxSizePt: number | null };
    delete content.basis.paperSize;
    delete content.basis.maxSizePt;
    const [refused] = await refusalOf(withFile(file));
    expect(refused!.problems.map((p) => [p.field, p.message])).toEqual([
      ['basis.maxSizePt', 'maxSizePt is null: say why in basis.maxSizePt.reading (and name a gap in unresolved)'],
      ['basis.paperSize', 'paperSize has a value but no quote it was read from'],
    ]);
  });

  it('a malformed file, a missing shared reading, and two files with one id', async () => {
    const bad: AuthoredFile = {
      file: 'bad.json',
      content: {
        id: 'Bad Id',
        level: 'supreme',
        limits: [{ document: 'x', basis: 'pages', pages: 3, words: 9, ruleKey: 'frap-32', quote: 'long enough quote' }],
      },
    };
    const orphan: AuthoredFile = { file: 'orphan.json', content: { extends: '_nothing', id: 'orphan' } };
    const twin: AuthoredFile = { file: 'ca9-copy.json', content: { ...(ca9().content as object) } };
    const checks = await checkFormatRecords(deps, [...BUNDLED_RECORD_FILES, bad, orphan, twin]);
    const problems = checks.flatMap((c) => c.problems);
    expect(problems).toEqual(
      expect.arrayContaining([
        { file: 'bad.json', field: 'id', message: 'an id is lowercase letters, digits, dots and hyphens' },
        expect.objectContaining({ file: 'bad.json', field: 'level' }),
        { file: 'bad.json', field: 'limits[0]', message: 'a limit gives exactly one number, in the field its basis names' },
        {
          file: 'orphan.json',
          field: 'extends',
          message: "extends '_nothing': not a shared reading among the record files (names start with _)",
        },
        { file: 'ca9-copy.json#ca9-2024-12-01', field: 'id', message: "id 'ca9-2024-12-01' is also the id of ca9.json#ca9-2024-12-01" },
      ]),
    );
  });

  it('on a corpus without the rules the records read (loaded in part) they wait, told as one line; a fault of its own is not', async () => {
    const empty = await openEmbeddedStores(null);
    try {
      const file = nd();
      (file.content as { limits: { quote: string }[] }).limits[0]!.quote = 'A principal brief may not exceed 50 pages';
      (file.content as { id: string }).id = 'nd-broken';
      const files = [...BUNDLED_RECORD_FILES, { ...file, file: 'nd-broken.json' }];
      const onEmpty = await loadFormatRecords({ versions: empty.versions, formats: empty.formats, now: () => clock }, files);
      // On the fixture's corpus the same broken record is refused for its quote alone.
      const onFull = splitRefusals((await loadFormatRecords(deps, files)).refused);
      const bundled = (await loadFormatRecords(deps, BUNDLED_RECORD_FILES)).loaded.length;

      const { waiting, refused } = splitRefusals(onEmpty.refused);

      expect(onEmpty.loaded).toEqual([]);
      expect(onEmpty.refused.length).toBeGreaterThan(100);
      expect(waiting.records).toHaveLength(bundled + 1);
      expect(waiting.records).toContain('ca1.json#ca1-2007-01-03');
      expect(waiting.rules).toContain('us/rules frap-32');
      expect(waiting.rules).toContain('nd/rules ndrappp-32');
      // Its rules missing, the broken record cannot be checked further: it waits with the others, not refused.
      expect(waiting.records).toContain('nd-broken.json');
      expect(refused).toEqual([]);
      expect(waitingLine(waiting)).toMatch(
        new RegExp(`^${waiting.records.length} not loaded until the corpus carries the ${waiting.rules.length} rules they read \\(`),
      );
      expect(onFull.waiting.records).toEqual([]);
      expect(onFull.refused.map((p) => [p.file, p.field])).toEqual([['nd-broken.json', 'limits[0].quote']]);
    } finally {
      await empty.close();
    }
  });

  it('a refused record is not served: loading removes the copy the store held', async () => {
    const file = nd();
    (file.content as { rules: { pin: string }[] }).rules[0]!.pin = `sha256:${'2'.repeat(64)}`;
    const report = await loadFormatRecords(deps, withFile(file));
    expect(report.refused.map((p) => p.field)).toEqual(['rules[0].pin']);
    await expect(listFormats(deps, { jurisdiction: 'nd' })).rejects.toMatchObject({ code: 'not_carried' });
    await loadFormatRecords(deps, BUNDLED_RECORD_FILES);
    expect((await listFormats(deps, { jurisdiction: 'nd' })).map((r) => r.id)).toEqual(['nd-2026-03-07']);
  });
});

describe('records through time: each period read from the texts in force over it', () => {
  it('answers the records in force on a date: 14,000 words as amended to 2010, with the period and the texts it was read from', async () => {
    const [r] = await listFormats(deps, { jurisdiction: 'us', court: 'ca9', asOf: '2010-06-01' });
    expect(r).toMatchObject({
      id: 'ca9-2010-02-01',
      effectiveFrom: '2010-02-01',
      effectiveUntil: '2011-01-07',
      stale: false,
      staleDetail: null,
    });
    expect(r!.limits.find((l) => l.document === 'principal brief' && l.basis === 'words')).toMatchObject({
      words: 14000,
      quote: 'it contains no more than 14,000 words',
    });
    expect(Object.fromEntries(r!.rules.map((x) => [x.key, [x.effectiveFrom, x.changedSincePinned]]))).toEqual({
      'frap-32': ['2007-01-03', false],
      'frap-28': ['2007-01-03', false],
      'frap-28.1': ['2010-02-01', false],
      'frap-29': ['2007-01-03', false],
      'frap-27': ['2010-02-01', false],
      'frap-35': ['2007-01-03', false],
      'frap-40': ['2007-01-03', false],
    });
    expect(r!.rules[0]!.sourceUrl).toBe('https://www.govinfo.gov/app/details/USCODE-2006-title28');
    const today = await listFormats(deps, { jurisdiction: 'us', court: 'ca9' });
    expect(today.map((x) => [x.id, x.effectiveUntil])).toEqual([['ca9-2024-12-01', null]]);
    expect((await listFormats(deps, { jurisdiction: 'us', court: 'ca9', asOf: '2012-11-30' })).map((x) => x.id)).toEqual([
      'ca9-2012-01-03',
    ]);
  });

  it('answers not_carried for a date no reading covers, naming the periods that are', async () => {
    const err = (await listFormats(deps, { jurisdiction: 'us', level: 'intermediate-appellate', asOf: '2019-06-01' }).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(err.code).toBe('not_carried');
    expect(err.message).toBe(
      "No filing-format record for us matching level 'intermediate-appellate' is in force on 2019-06-01: no reading of the rules on file covers that date. " +
        "The records matching level 'intermediate-appellate' cover 2007-01-03 to 2010-02-01 (13 records), 2010-02-01 to 2011-01-07 (13 records), " +
        '2011-01-07 to 2012-01-03 (13 records), 2012-01-03 to 2012-12-01 (13 records), 2024-12-01 onward (13 records).',
    );
    const before = (await listFormats(deps, { jurisdiction: 'nd', asOf: '2026-03-06' }).catch((e: unknown) => e)) as AppError;
    expect(before.message).toMatch(/^No filing-format record for nd is in force on 2026-03-06: .* cover 2026-03-07 onward \(1 record\)\.$/);
  });

  it('refuses a dated record whose pinned texts are not in force over its whole period', async () => {
    const base = fileNamed('_frap-2011-01-07.json');
    (base.content as { effectiveUntil: string }).effectiveUntil = '2012-06-01';
    const problems = (await checkFormatRecords(deps, withFile(base))).filter((c) => !c.valid).flatMap((c) => c.problems);
    expect([...new Set(problems.map((p) => `${p.field}: ${p.message}`))]).toEqual([
      "rules[6].pin: the version of Fed. R. App. P. 40 with contentHash sha256:dfb0e982bb4c4e8a627cc307cbf5a4eaaea2337a44ac5a12983694baf6d4f51e is in force 2007-01-03–2012-01-03, not over the record's period 2011-01-07–2012-06-01",
    ]);
    expect(new Set(problems.map((p) => p.file)).size).toBe(13);
    const reversed = fileNamed('_frap-2012-01-03.json');
    (reversed.content as { effectiveUntil: string }).effectiveUntil = '2011-01-01';
    const shape = (await checkFormatRecords(deps, withFile(reversed))).flatMap((c) => c.problems).map((p) => `${p.field}: ${p.message}`);
    expect(shape).toContain('effectiveUntil: the period ends (2011-01-01) on or before it starts (2012-01-03)');
  });
});

describe('filters and order', () => {
  it('lists the courts of appeals in court order, each read from FRAP', async () => {
    const results = await listFormats(deps, { jurisdiction: 'us' });
    expect(results.map((r) => r.court)).toEqual([
      'ca1',
      'ca2',
      'ca3',
      'ca4',
      'ca5',
      'ca6',
      'ca7',
      'ca8',
      'ca9',
      'ca10',
      'ca11',
      'cadc',
      'cafc',
    ]);
    expect(new Set(results.map((r) => r.level))).toEqual(new Set(['intermediate-appellate']));
  });

  it('a filter that matches nothing lists the ids that exist, literally: those in force on the date asked', async () => {
    const courts = ['ca1', 'ca2', 'ca3', 'ca4', 'ca5', 'ca6', 'ca7', 'ca8', 'ca9', 'ca10', 'ca11', 'cadc', 'cafc'];
    const refused = (filter: Parameters<typeof listFormats>[1]) =>
      listFormats(deps, filter).then(
        () => expect.unreachable(),
        (e: unknown) => {
          expect(e).toBeInstanceOf(AppError);
          expect((e as AppError).code).toBe('not_carried');
          return (e as AppError).message;
        },
      );

    expect(await refused({ jurisdiction: 'us', court: 'scotus' })).toBe(
      "No filing-format record for us matches court 'scotus'. The records for us in force on 2026-11-23: " +
        `${courts.map((c) => `${c}-2024-12-01`).join(', ')} (intermediate-appellate).`,
    );
    expect(await refused({ jurisdiction: 'us', court: 'scotus', asOf: '2008-06-01' })).toBe(
      "No filing-format record for us matches court 'scotus'. The records for us in force on 2008-06-01: " +
        `${courts.map((c) => `${c}-2007-01-03`).join(', ')} (intermediate-appellate).`,
    );
    expect(await refused({ jurisdiction: 'us', court: 'scotus', asOf: '2014-01-01' })).toBe(
      "No filing-format record for us matches court 'scotus'. None of the records for us is in force on 2014-01-01; they cover " +
        '2007-01-03 to 2010-02-01 (13 records), 2010-02-01 to 2011-01-07 (13 records), 2011-01-07 to 2012-01-03 (13 records), ' +
        '2012-01-03 to 2012-12-01 (13 records), 2024-12-01 onward (13 records).',
    );
    expect(await refused({ jurisdiction: 'nd', level: 'intermediate-appellate' })).toBe(
      "No filing-format record for nd matches level 'intermediate-appellate'. The records for nd in force on 2026-11-23: nd-2026-03-07 (last-resort).",
    );
    const none = await listFormats(deps, { jurisdiction: 'dc' }).catch((e: unknown) => e);
    expect((none as AppError).message).toBe("No filing-format record is held for jurisdiction 'dc'. Records are held for: nd, us.");
  });
});

describe('staleness follows the rules in force, with no change to the record', () => {
  let changedFrap: string;

  beforeAll(async () => {
    // TEST FIXTURE, never bundled: the bundled FRAP with Rule 32's type size changed, as a later edition.
    changedFrap = join(work, 'frap');
    await cp(join(SAMPLE, 'rules/frap'), changedFrap, { recursive: true });
    const rule32 = join(changedFrap, 'rule_32.md');
    const text = await readFile(rule32, 'utf8');
    expect(text).toContain('must be 14-point or larger');
    await writeFile(rule32, text.replace('must be 14-point or larger', 'must be 12-point or larger'));
  });

  it('goes stale on the day a changed rule comes into force, and only for the records that cite it', async () => {
    const ca9Before = (await listFormats(deps, { jurisdiction: 'us', court: 'ca9' }))[0]!;
    expect(ca9Before.stale).toBe(false);
    expect(ca9Before.staleDetail).toBeNull();
    expect(ca9Before.rules.every((r) => !r.changedSincePinned)).toBe(true);

    await ingestRules('frap', changedFrap, '2027-12-01');
    const stored = await stores.formats.listRecords();

    clock = new Date('2027-11-30T12:00:00Z');
    expect((await listFormats(deps, { jurisdiction: 'us', court: 'ca9' }))[0]!.stale).toBe(false);

    clock = new Date('2027-12-01T12:00:00Z');
    const after = (await listFormats(deps, { jurisdiction: 'us', court: 'ca9' }))[0]!;
    expect(after.stale).toBe(true);
    expect(after.rules.filter((r) => r.changedSincePinned).map((r) => r.key)).toEqual(['frap-32']);
    expect(after.staleDetail).toMatch(
      /^Fed\. R\. App\. P\. 32 in force on 2027-12-01 \(.*from 2027-12-01\) no longer matches the text this record was read from \(sha256:a9d55dc8/,
    );
    expect(after.rulePins).toEqual(ca9Before.rulePins);
    expect(after.loadedAt).toBe(ca9Before.loadedAt);
    expect((await listFormats(deps, { jurisdiction: 'nd' }))[0]!.stale).toBe(false);
    // The record itself is as it was: validation still passes against the pinned (older) version.
    expect(await stores.formats.listRecords()).toEqual(stored);
    const checks = await checkFormatRecords(deps, BUNDLED_RECORD_FILES);
    expect(checks.find((c) => c.id === 'ca9-2024-12-01')!).toMatchObject({ valid: true, loaded: true, stale: true });
    // A record of an earlier period is not stale: its texts were in force over all of it.
    expect(checks.find((c) => c.id === 'ca9-2012-01-03')!).toMatchObject({ valid: true, loaded: true, stale: false });
    // Asked about a date before the change, the lookup still answers the pinned text.
    expect(await stores.versions.findInForce({ jurisdiction: 'us', corpus: 'rules', key: 'frap-32' }, '2027-11-30')).toMatchObject({
      provenance: { contentHash: ca9Before.rulePins['frap-32'] },
    });
  });

  it('is stale when no version of a cited rule is in force', async () => {
    // TEST FIXTURE, never bundled: a later FRAP edition without Rule 40.
    const withoutRule40 = join(work, 'frap-without-40');
    await cp(changedFrap, withoutRule40, { recursive: true });
    await rm(join(withoutRule40, 'rule_40.md'));
    await ingestRules('frap', withoutRule40, '2028-12-01');
    clock = new Date('2028-12-02T12:00:00Z');
    const r = (await listFormats(deps, { jurisdiction: 'us', court: 'cadc' }))[0]!;
    expect(r.stale).toBe(true);
    expect(r.staleDetail).toContain('no version of Fed. R. App. P. 40 is in force on 2028-12-02');
    expect(r.staleDetail).toContain('Fed. R. App. P. 32 in force on 2028-12-02');
    expect(r.rules.find((x) => x.key === 'frap-40')!.changedSincePinned).toBe(false);
  });
});
