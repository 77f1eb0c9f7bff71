import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Corpus, OPEN_END, type SectionStatus } from '#law/model.ts';
import type { SearchDocument, SearchHit, SearchIndex, SearchQuery } from '#law/ports.ts';
import { searchDocumentId } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';

/** An index on storage of its own (a schema, an index name), with the means to empty and drop it. */
export interface SearchIndexFixture {
  index: SearchIndex;
  /** Remove every document: each test starts from an empty index. */
  clear(): Promise<void>;
  /** Drop what `open` created. */
  dispose(): Promise<void>;
}

export interface SearchIndexFactory {
  /** A ready, empty index. Called once per suite. */
  open(): Promise<SearchIndexFixture>;
  /** An index whose underlying store has been closed (a stopped instance, an ended pool, a closed client). */
  openClosed(): Promise<SearchIndex>;
}

// ---------------------------------------------------------------------------------------------------------------
// Documents

export interface DocSpec {
  key: string;
  jurisdiction?: string;
  corpus?: Corpus;
  catchline?: string;
  body?: string;
  status?: SectionStatus;
  validFrom?: string;
  validTo?: string;
  versionLabel?: string;
}

/** A small synthetic document: in force from 2020-01-01 (New York offset) with an open end unless told. */
export function searchDoc(spec: DocSpec): SearchDocument {
  const { key, jurisdiction = 'dc', corpus = 'statutes', catchline = `Section ${key}.`, body = 'Reserved.' } = spec;
  const validFrom = spec.validFrom ?? '2020-01-01T00:00:00-05:00';
  const citation = { jurisdiction, corpus, key, display: `${jurisdiction.toUpperCase()} ${corpus} § ${key}`, parts: { section: key } };
  return {
    id: searchDocumentId(citation, validFrom),
    citation,
    catchline,
    bodyText: body,
    status: spec.status ?? 'active',
    temporalBasis: 'effective-date',
    provenance: {
      sourceUrl: `https://example.test/${jurisdiction}/${corpus}/${key}`,
      retrievedAt: '2026-11-22T07:25:00Z',
      contentHash: `sha256:${key.padEnd(64, '0').slice(0, 64)}`,
      sourceSystem: 'contract-test',
      versionLabel: spec.versionLabel ?? 'v1',
    },
    validFrom,
    validTo: spec.validTo ?? OPEN_END,
  };
}

const SAMPLE = new URL('../../data/sample/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, SAMPLE), 'utf8');

/** Crude text of an XML fragment: tags dropped, whitespace collapsed (enough for a search test). */
const textOf = (xml: string): string =>
  xml
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** D.C. Code sections at every published version (data/sample/dc-code, manifest.csv), annotations left out. */
function dcCodeSamples(): SearchDocument[] {
  const rows = read('dc-code/manifest.csv')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [section, , , commitDate, label, change, , file] = line.split(',');
      // Validity on the publication date, at midnight in the commit's own offset.
      return { section: section!, from: `${label}T00:00:00${commitDate!.slice(19)}`, label: label!, change: change!, file: file! };
    });
  const docs: SearchDocument[] = [];
  rows.forEach((row, i) => {
    if (row.change === 'D') return;
    const next = rows[i + 1];
    const validTo = next && next.section === row.section ? next.from : OPEN_END;
    const xml = read(`dc-code/${row.file}`).replace(/<annotations>[\s\S]*?<\/annotations>/g, '');
    const heading = /<heading[^>]*>([\s\S]*?)<\/heading>/.exec(xml)?.[1] ?? '';
    const after = xml.slice(xml.indexOf('</heading>') + '</heading>'.length);
    const citation = {
      jurisdiction: 'dc',
      corpus: 'statutes' as const,
      key: row.section,
      display: `D.C. Code § ${row.section}`,
      parts: { section: row.section },
    };
    docs.push({
      id: searchDocumentId(citation, row.from),
      citation,
      catchline: textOf(heading),
      bodyText: textOf(after),
      status: 'active',
      temporalBasis: 'publication-date',
      provenance: {
        sourceUrl: `https://code.dccouncil.gov/us/dc/council/code/sections/${row.section}`,
        retrievedAt: '2026-11-22T07:25:00Z',
        contentHash: `sha256:${row.file}`,
        sourceSystem: 'dc-council-law-xml',
        versionLabel: row.label,
      },
      validFrom: row.from,
      validTo,
    });
  });
  return docs;
}

/** US Code Title 1 sections at release points 113-31 (2013-07-26) and 117-80 (2022-01-27), notes left out. */
function uscTitle1Samples(): SearchDocument[] {
  const points = [
    { file: 'uslm/usc01@113-31.xml', label: '113-31', from: '2013-07-26T00:00:00-04:00', to: '2022-01-27T00:00:00-05:00' },
    { file: 'uslm/usc01@117-80.xml', label: '117-80', from: '2022-01-27T00:00:00-05:00', to: OPEN_END },
  ];
  return points.flatMap((point) =>
    [...read(point.file).matchAll(/<section[^>]*identifier="\/us\/usc\/t1\/s(\w+)"[^>]*>([\s\S]*?)<\/section>/g)].map(
      ([, section, inner]) => {
        const heading = /<heading>([\s\S]*?)<\/heading>/.exec(inner!)?.[1] ?? '';
        const content = inner!.slice(inner!.indexOf('</heading>') + '</heading>'.length).split(/<sourceCredit|<notes/)[0]!;
        const citation = {
          jurisdiction: 'us',
          corpus: 'statutes' as const,
          key: `1-${section}`,
          display: `1 U.S.C. § ${section}`,
          parts: { title: '1', section: section! },
        };
        return {
          id: searchDocumentId(citation, point.from),
          citation,
          catchline: textOf(heading),
          bodyText: textOf(content),
          status: 'active' as const,
          temporalBasis: 'compiled-edition' as const,
          provenance: {
            sourceUrl: `https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title1-section${section}`,
            retrievedAt: '2026-11-22T07:25:00Z',
            contentHash: `sha256:${point.label}-${section}`,
            sourceSystem: 'olrc-uslm',
            versionLabel: point.label,
          },
          validFrom: point.from,
          validTo: point.to,
        };
      },
    ),
  );
}

/** The real texts of the sample corpus: a few hundred versions, some 36 KB long. */
export const loadSampleDocuments = (): SearchDocument[] => [...dcCodeSamples(), ...uscTitle1Samples()];

// ---------------------------------------------------------------------------------------------------------------
// The contract

const query = (q: string, over: Partial<SearchQuery> = {}): SearchQuery => ({
  q,
  jurisdictions: null,
  corpus: null,
  asOf: '2024-06-01',
  limit: 10,
  ...over,
});
const keys = (hits: SearchHit[]): string[] => hits.map((h) => h.citation.key);

/** The one behaviour every SearchIndex adapter must have (PostgreSQL on PGlite or a server, OpenSearch). */
export function describeSearchIndexContract(name: string, factory: SearchIndexFactory): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let fixture: SearchIndexFixture;
    let index: SearchIndex;

    beforeAll(async () => {
      fixture = await factory.open();
      index = fixture.index;
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

    describe('on small documents', () => {
      beforeEach(async () => {
        await fixture.clear();
      });

      it('returns only documents holding every term (AND)', async () => {
        // Prepare
        await index.upsert([
          searchDoc({ key: 'both', body: 'The landlord shall return the security deposit within 45 days.' }),
          searchDoc({ key: 'one', body: 'The landlord shall keep the premises in repair.' }),
        ]);
        // Act
        const hits = await index.search(query('landlord deposit'));
        // Assess
        expect(keys(hits)).toEqual(['both']);
      });

      it('ranks a catchline match above a body-only match', async () => {
        await index.upsert([
          searchDoc({
            key: 'a-body',
            catchline: 'General provisions.',
            body: 'An easement may be released. The easement ends on release.',
          }),
          searchDoc({ key: 'z-catchline', catchline: 'Easements.', body: 'An easement may be granted in writing.' }),
        ]);

        const hits = await index.search(query('easement'));

        expect(keys(hits)).toEqual(['z-catchline', 'a-body']);
      });

      it('ranks more matches above fewer', async () => {
        await index.upsert([
          searchDoc({
            key: 'a-once',
            body: 'A quarantine order may be issued by the Director for the protection of health in the District.',
          }),
          searchDoc({
            key: 'z-thrice',
            body: 'A quarantine order may set the quarantine place and the quarantine period for the protection of health.',
          }),
        ]);

        const hits = await index.search(query('quarantine'));

        expect(keys(hits)).toEqual(['z-thrice', 'a-once']);
      });

      it('breaks ties by jurisdiction, corpus and key', async () => {
        const same = { catchline: 'Notice.', body: 'Notice shall be given in writing.' };
        await index.upsert([
          searchDoc({ key: 'b', jurisdiction: 'us', ...same }),
          searchDoc({ key: 'b', jurisdiction: 'dc', corpus: 'rules', ...same }),
          searchDoc({ key: 'b', jurisdiction: 'dc', ...same }),
          searchDoc({ key: 'a', jurisdiction: 'dc', corpus: 'rules', ...same }),
        ]);

        const hits = await index.search(query('notice writing'));

        expect(hits.map((h) => `${h.citation.jurisdiction}/${h.citation.corpus}/${h.citation.key}`)).toEqual([
          'dc/rules/a',
          'dc/rules/b',
          'dc/statutes/b',
          'us/statutes/b',
        ]);
      });

      it('sees a version from its validFrom day up to, not including, its validTo day', async () => {
        // Late-evening start: the local date (not the UTC one) is the first day in force.
        await index.upsert([
          searchDoc({
            key: 'v',
            body: 'Curfew hours apply.',
            validFrom: '2024-03-20T23:30:00-04:00',
            validTo: '2024-04-21T00:00:00-04:00',
          }),
        ]);
        const seen = async (asOf: string) => keys(await index.search(query('curfew', { asOf })));

        expect(await seen('2024-03-19')).toEqual([]);
        expect(await seen('2024-03-20')).toEqual(['v']);
        expect(await seen('2024-04-20')).toEqual(['v']);
        expect(await seen('2024-04-21')).toEqual([]);
      });

      it('keeps an open-ended version in force for ever', async () => {
        await index.upsert([searchDoc({ key: 'open', body: 'Curfew hours apply.', validFrom: '2024-03-20T00:00:00-04:00' })]);

        expect(keys(await index.search(query('curfew', { asOf: '2024-03-20' })))).toEqual(['open']);
        expect(keys(await index.search(query('curfew', { asOf: '9000-01-01' })))).toEqual(['open']);
      });

      it('returns the version in force when a key has several', async () => {
        await index.upsert([
          searchDoc({
            key: 'k',
            body: 'Curfew starts at ten.',
            versionLabel: 'old',
            validFrom: '2020-01-01T00:00:00-05:00',
            validTo: '2023-01-01T00:00:00-05:00',
          }),
          searchDoc({ key: 'k', body: 'Curfew starts at eleven.', versionLabel: 'new', validFrom: '2023-01-01T00:00:00-05:00' }),
        ]);

        const before = await index.search(query('curfew', { asOf: '2022-12-31' }));
        const after = await index.search(query('curfew', { asOf: '2023-01-01' }));

        expect(before.map((h) => h.versionLabel)).toEqual(['old']);
        expect(after.map((h) => h.versionLabel)).toEqual(['new']);
      });

      it('filters by a list of jurisdictions, or none (all)', async () => {
        await index.upsert(['dc', 'nd', 'us'].map((jurisdiction) => searchDoc({ key: 'x', jurisdiction, body: 'Appellate briefs.' })));
        const jurisdictionsOf = async (jurisdictions: string[] | null) =>
          (await index.search(query('appellate brief', { jurisdictions }))).map((h) => h.citation.jurisdiction);

        expect(await jurisdictionsOf(null)).toEqual(['dc', 'nd', 'us']);
        expect(await jurisdictionsOf(['nd'])).toEqual(['nd']);
        expect(await jurisdictionsOf(['us', 'dc'])).toEqual(['dc', 'us']);
        expect(await jurisdictionsOf(['zz'])).toEqual([]);
      });

      it('filters by corpus', async () => {
        await index.upsert([
          searchDoc({ key: 'frap-32', corpus: 'rules', body: 'Form of briefs.' }),
          searchDoc({ key: '11-101', corpus: 'statutes', body: 'Form of briefs.' }),
        ]);

        expect(keys(await index.search(query('briefs', { corpus: 'rules' })))).toEqual(['frap-32']);
        expect(keys(await index.search(query('briefs', { corpus: 'statutes' })))).toEqual(['11-101']);
        expect(keys(await index.search(query('briefs', { corpus: 'ordinances' })))).toEqual([]);
      });

      it('returns at most `limit` hits, the best ones', async () => {
        await index.upsert([
          searchDoc({ key: 'p1', catchline: 'Parking.', body: 'Parking.' }),
          ...['p2', 'p3', 'p4', 'p5'].map((key) => searchDoc({ key, body: 'No parking on this street.' })),
        ]);

        const all = await index.search(query('parking'));
        const two = await index.search(query('parking', { limit: 2 }));

        expect(all).toHaveLength(5);
        expect(keys(two)).toEqual(keys(all).slice(0, 2));
        expect(keys(two)[0]).toBe('p1');
      });

      it('returns the hit fields of the document', async () => {
        const doc = searchDoc({
          key: 'h',
          catchline: 'Hunting licences.',
          body: 'A hunting licence is required.',
          status: 'repealed',
          versionLabel: '2024-05',
        });
        await index.upsert([doc]);

        const [hit] = await index.search(query('hunting'));

        expect(hit).toMatchObject({
          citation: doc.citation,
          catchline: doc.catchline,
          status: 'repealed',
          temporalBasis: doc.temporalBasis,
          versionLabel: '2024-05',
          provenance: doc.provenance,
        });
      });

      it('marks the matched terms with <b> in an escaped snippet', async () => {
        await index.upsert([
          searchDoc({ key: 's', body: 'Forfeiture applies to <script>alert(1)</script> & "x" items seized under this chapter.' }),
        ]);

        const [hit] = await index.search(query('forfeiture'));

        expect(hit!.snippet).toContain('<b>Forfeiture</b>');
        expect(hit!.snippet).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;');
        const outsideTags = hit!.snippet.replace(/<\/?b>/g, '');
        expect(outsideTags).not.toMatch(/[<>]/);
        expect(outsideTags).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
      });

      it('matches other forms of a word (english stemming)', async () => {
        await index.upsert([
          searchDoc({ key: 'agreement', body: 'An agreement to arbitrate is valid.' }),
          searchDoc({ key: 'offenses', body: 'Offenses committed before the effective date.' }),
          searchDoc({ key: 'strangled', body: 'The victim was strangled.' }),
        ]);

        expect(keys(await index.search(query('agreements')))).toEqual(['agreement']);
        expect(keys(await index.search(query('offense')))).toEqual(['offenses']);
        expect(keys(await index.search(query('strangling')))).toEqual(['strangled']);
      });

      it('is case-insensitive', async () => {
        await index.upsert([searchDoc({ key: 'c', body: 'The MAYOR may veto.' })]);

        expect(keys(await index.search(query('mayor VETO')))).toEqual(['c']);
      });

      it('returns nothing, without failing, for a query with no searchable word', async () => {
        await index.upsert([searchDoc({ key: 'w', body: 'The Council of the District of Columbia and the Mayor.' })]);

        for (const q of ['', '   ', 'the of and', '!!! --- ???', '"" "the"', '&|!():*']) {
          expect(await index.search(query(q)), `q=${JSON.stringify(q)}`).toEqual([]);
        }
      });

      it('treats query punctuation as text, not as operators', async () => {
        await index.upsert([searchDoc({ key: 'p', body: 'The tenant may terminate the lease.' })]);

        for (const q of ['tenant & lease', 'tenant | lease', 'tenant:* (lease)', "tenant's lease!", 'tenant\\ lease']) {
          expect(keys(await index.search(query(q))), `q=${JSON.stringify(q)}`).toEqual(['p']);
        }
      });

      it('keeps one document per id: upsert is idempotent and the last write wins', async () => {
        const first = searchDoc({ key: 'u', body: 'Original text about fireworks.' });
        const second = { ...first, bodyText: 'Amended text about sparklers.' };

        await index.upsert([first]);
        await index.upsert([first]);
        expect(await index.count()).toBe(1);

        await index.upsert([first, second]);
        expect(await index.count()).toBe(1);
        expect(await index.search(query('fireworks'))).toEqual([]);
        expect(keys(await index.search(query('sparklers')))).toEqual(['u']);
      });

      it('upserts an empty list as a no-op', async () => {
        await index.upsert([]);

        expect(await index.count()).toBe(0);
      });

      it('ends a version with setValidTo', async () => {
        const doc = searchDoc({ key: 't', body: 'Tobacco sales are licensed.', validFrom: '2024-01-01T00:00:00-05:00' });
        await index.upsert([doc]);

        await index.setValidTo(doc.id, '2024-05-01T00:00:00-04:00');

        expect(keys(await index.search(query('tobacco', { asOf: '2024-04-30' })))).toEqual(['t']);
        expect(keys(await index.search(query('tobacco', { asOf: '2024-05-01' })))).toEqual([]);
        await expect(index.setValidTo('dc#statutes#none#2024-01-01T00:00:00-05:00', OPEN_END)).resolves.toBeUndefined();
      });

      it('removes documents by id (unknown ids are ignored)', async () => {
        const docs = ['r1', 'r2', 'r3'].map((key) => searchDoc({ key, body: 'Recycling bins.' }));
        await index.upsert(docs);

        await index.remove([docs[0]!.id, docs[2]!.id, 'dc#statutes#missing#2020-01-01T00:00:00-05:00']);
        await index.remove([]);

        expect(await index.count()).toBe(1);
        expect(keys(await index.search(query('recycling')))).toEqual(['r2']);
      });

      it('counts documents and answers ping', async () => {
        await index.upsert(['c1', 'c2', 'c3'].map((key) => searchDoc({ key })));

        expect(await index.count()).toBe(3);
        await expect(index.ping()).resolves.toBeUndefined();
      });
    });

    describe('after refresh, with a word in many documents (what an index may prepare ahead for such words)', () => {
      beforeEach(async () => {
        await fixture.clear();
      });

      /** `rent` `n` times among 8 words of body: more is better, all else equal (same length, same catchline size). */
      const rentDoc = (key: string, n: number, over: Partial<DocSpec> = {}) =>
        searchDoc({
          key,
          catchline: `Section ${key}.`,
          body: [...Array(n).fill('rent'), ...Array(8 - n).fill('lorem')].join(' '),
          ...over,
        });
      const cite = (hits: SearchHit[]) => hits.map((h) => `${h.citation.jurisdiction}/${h.citation.corpus}/${h.citation.key}`);

      it('keeps ties in citation order at the edge of `limit`', async () => {
        const same = { catchline: 'Notice.', body: 'Notice of rent shall be given in writing.' };
        await index.upsert([
          searchDoc({ key: 'b', jurisdiction: 'us', ...same }),
          searchDoc({ key: 'b', jurisdiction: 'dc', corpus: 'rules', ...same }),
          searchDoc({ key: 'c', jurisdiction: 'dc', ...same }),
          searchDoc({ key: 'a', jurisdiction: 'dc', corpus: 'rules', ...same }),
          searchDoc({ key: 'b', jurisdiction: 'dc', ...same }),
          searchDoc({ key: 'a', jurisdiction: 'us', ...same }),
        ]);
        await index.refresh();

        expect(cite(await index.search(query('notice', { limit: 3 })))).toEqual(['dc/rules/a', 'dc/rules/b', 'dc/statutes/b']);
        expect(cite(await index.search(query('notice', { limit: 5 })))).toEqual([
          'dc/rules/a',
          'dc/rules/b',
          'dc/statutes/b',
          'dc/statutes/c',
          'us/statutes/a',
        ]);
      });

      it('puts a catchline match first even when its body scores below the others', async () => {
        await index.upsert([
          ...[1, 2, 3, 4, 5, 6].map((n) => rentDoc(`k${n}`, n)),
          searchDoc({ key: 'z', catchline: 'Rent.', body: `Lorem ${'ipsum '.repeat(200)}` }),
        ]);
        await index.refresh();

        expect(keys(await index.search(query('rent', { limit: 3 })))).toEqual(['z', 'k6', 'k5']);
        expect(keys(await index.search(query('rents')))).toEqual(['z', 'k6', 'k5', 'k4', 'k3', 'k2', 'k1']);
      });

      it('skips the best-ranked documents the date does not hold, however many', async () => {
        const ended = { validTo: '2021-01-01T00:00:00-05:00' };
        await index.upsert([...[1, 2, 3].map((n) => rentDoc(`k${n}`, n)), ...[4, 5, 6, 7, 8].map((n) => rentDoc(`k${n}`, n, ended))]);
        await index.refresh();

        expect(keys(await index.search(query('rent', { limit: 2 })))).toEqual(['k3', 'k2']);
        expect(keys(await index.search(query('rent', { limit: 2, asOf: '2020-06-01' })))).toEqual(['k8', 'k7']);
        expect(keys(await index.search(query('rent', { asOf: '2019-06-01' })))).toEqual([]);
      });

      it('filters by jurisdiction and corpus a word common in another jurisdiction only', async () => {
        await index.upsert([
          ...[3, 4, 5, 6, 7, 8].map((n) => rentDoc(`u${n}`, n, { jurisdiction: 'us' })),
          rentDoc('d1', 1),
          rentDoc('d2', 2, { corpus: 'rules' }),
          rentDoc('d3', 2),
        ]);
        await index.refresh();

        expect(keys(await index.search(query('rent', { jurisdictions: ['dc'] })))).toEqual(['d2', 'd3', 'd1']);
        expect(keys(await index.search(query('rent', { jurisdictions: ['dc'], corpus: 'statutes' })))).toEqual(['d3', 'd1']);
        expect(keys(await index.search(query('rent', { jurisdictions: ['dc', 'us'], limit: 3 })))).toEqual(['u8', 'u7', 'u6']);
        expect(keys(await index.search(query('rent', { jurisdictions: ['tn'] })))).toEqual([]);
      });

      it('answers from what changed after the refresh: new, rewritten, ended and removed documents', async () => {
        const docs = [1, 2, 3, 4, 5, 6].map((n) => rentDoc(`k${n}`, n));
        await index.upsert(docs);
        await index.refresh();
        expect(keys(await index.search(query('rent', { limit: 3 })))).toEqual(['k6', 'k5', 'k4']);

        await index.upsert([
          searchDoc({ key: 'new', catchline: 'Rent control.', body: 'Lorem.' }),
          rentDoc('k5', 0, { catchline: 'Section k5.', body: 'Lorem ipsum.' }),
          rentDoc('k1', 8),
        ]);
        await index.setValidTo(docs[5]!.id, '2022-01-01T00:00:00-05:00');
        await index.remove([docs[3]!.id]);

        const expected = ['new', 'k1', 'k3', 'k2'];
        expect(keys(await index.search(query('rent')))).toEqual(expected);
        await index.refresh();
        expect(keys(await index.search(query('rent')))).toEqual(expected);
        expect(keys(await index.search(query('rent', { limit: 2 })))).toEqual(expected.slice(0, 2));
      });

      it('ranks phrases and several words as without a refresh', async () => {
        await index.upsert([
          ...[1, 2, 3, 4, 5].map((n) => rentDoc(`k${n}`, n, { body: `${'rent '.repeat(n)}control board` })),
          searchDoc({ key: 'c', catchline: 'Rent board.', body: 'Control.' }),
        ]);
        const before = await Promise.all(['rent board', '"rent control"', 'rent', 'board'].map((q) => index.search(query(q))));
        await index.refresh();
        const after = await Promise.all(['rent board', '"rent control"', 'rent', 'board'].map((q) => index.search(query(q))));

        expect(after.map(keys)).toEqual(before.map(keys));
        expect(keys(after[0]!)[0]).toBe('c');
        expect(keys(after[1]!).sort()).toEqual(['k1', 'k2', 'k3', 'k4', 'k5']);
      });
    });

    describe('on real law texts (data/sample)', () => {
      const samples = loadSampleDocuments();

      beforeAll(async () => {
        await fixture.clear();
        await index.upsert(samples);
      });

      it('holds every sample version', async () => {
        expect(await index.count()).toBe(new Set(samples.map((d) => d.id)).size);
      });

      it('finds the D.C. strangulation section in the version in force, and nothing after its repeal', async () => {
        const on = (asOf: string) => index.search(query('strangulation', { jurisdictions: ['dc'], asOf }));

        const [first] = await on('2024-03-25');
        expect(first).toMatchObject({ catchline: 'Strangulation.', versionLabel: '2024-03-20', citation: { key: '22-404.05' } });
        expect((await on('2024-03-25')).filter((h) => h.citation.key === '22-404.05')).toHaveLength(1);
        expect(keys(await on('2024-03-17'))).not.toContain('22-404.05');
        expect(keys(await on('2024-07-01'))).not.toContain('22-404.05');
        expect(first!.snippet).toMatch(/<b>strangulation<\/b>/i);
      });

      it('puts the section titled with the term first and picks the release point in force', async () => {
        const old = await index.search(query('vessel', { asOf: '2020-01-01' }));
        const current = await index.search(query('vessel', { asOf: '2024-01-01', jurisdictions: ['us'] }));

        expect(old[0]).toMatchObject({ citation: { key: '1-3', display: '1 U.S.C. § 3' }, versionLabel: '113-31' });
        expect(current[0]).toMatchObject({ citation: { key: '1-3' }, versionLabel: '117-80' });
        expect(current[0]!.snippet).toContain('<b>vessel</b>');
      });

      it('requires every term across a real corpus', async () => {
        const hits = await index.search(query('watercraft transportation', { asOf: '2024-01-01' }));

        expect(keys(hits)).toEqual(['1-3']);
      });

      it('keeps jurisdictions apart', async () => {
        const hits = await index.search(query('council', { jurisdictions: ['us'], asOf: '2024-01-01', limit: 50 }));

        expect(hits.every((h) => h.citation.jurisdiction === 'us')).toBe(true);
      });

      it('returns escaped snippets of at most a few dozen words', async () => {
        const hits = await index.search(query('district', { asOf: '2024-01-01', limit: 50 }));

        expect(hits.length).toBeGreaterThan(5);
        for (const hit of hits) {
          expect(hit.snippet.replace(/<\/?b>/g, '')).not.toMatch(/[<>]/);
          expect(hit.snippet.split(' ').length).toBeLessThan(120);
        }
      });
    });

    describe('when the store is closed', () => {
      it('rejects search, count and ping with StoreUnavailableError', async () => {
        const closed = await factory.openClosed();

        await expect(closed.search(query('anything'))).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(closed.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(closed.count()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(closed.upsert([searchDoc({ key: 'late' })])).rejects.toBeInstanceOf(StoreUnavailableError);
      });
    });
  });
}
