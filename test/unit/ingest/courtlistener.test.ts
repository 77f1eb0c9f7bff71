import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ApiV3Record,
  citationRow,
  clusterFactsFromFixture,
  courtsFromFixture,
  linkedCitationRow,
  markCounts,
  markedCitations,
  rowsFromApiV3,
  rowsFromNetwork,
} from '#ingest/courtlistener-api.ts';

const sample = (path: string) => JSON.parse(readFileSync(new URL(`../../../data/sample/caselaw/${path}`, import.meta.url), 'utf8'));

describe('CourtListener records into replica rows', () => {
  it('reads an API v3 record: cluster, docket and court, each printed citation in CourtListener’s form, the edges it cites', () => {
    const { batch, retrievedOn, skipped } = rowsFromApiV3(sample('courtlistener-api-v3/1296689.json') as ApiV3Record);
    expect(batch.clusters).toEqual([
      expect.objectContaining({
        id: 1296689,
        docketId: 1571851,
        courtId: 'ga',
        caseName: 'Chester v. State',
        dateFiled: '1996-05-06',
        citationCount: 13,
        precedentialStatus: 'Published',
      }),
    ]);
    expect(batch.dockets).toEqual([expect.objectContaining({ id: 1571851, courtId: 'ga' })]);
    expect(batch.citations).toEqual([
      { clusterId: 1296689, volume: '267', reporter: 'Ga.', page: '9', type: 2 },
      { clusterId: 1296689, volume: '471', reporter: 'S.E.2d', page: '836', type: 3 },
    ]);
    expect(batch.opinionsCited.length).toBeGreaterThan(5);
    expect(batch.opinionsCited.every((e) => e.citingOpinionId === 1296689 && e.depth >= 1)).toBe(true);
    expect(retrievedOn).toBe('2018-06-20');
    expect(skipped).toEqual([]);
  });

  it('takes an edge’s depth from how many times html_with_citations marks the cited opinion', () => {
    const record = sample('courtlistener-api-v3/2854091.json') as ApiV3Record;
    expect(markCounts(record.HTMLtext!).get(110676)).toBe(2); // Santosky v. Kramer: 455 U.S. 745 and 102 S. Ct. 1388
    const { batch } = rowsFromApiV3(record);
    expect(batch.opinionsCited.find((e) => e.citedOpinionId === 110676)?.depth).toBe(2);
    expect(batch.citations).toEqual([]); // the record prints no citation of its own
  });

  it('reads the citation network: one opinion per cluster, numbered like it, edges of depth 1, no court it does not state', () => {
    const { clusters, opinions, opinionsCited } = rowsFromNetwork(sample('courtlistener-fixtures/tog_to_marsh.json'));
    expect(clusters).toHaveLength(17);
    expect(clusters.find((c) => c.id === 111014)).toMatchObject({
      caseName: 'Marsh v. Chambers',
      dateFiled: '1983-07-05',
      citationCount: 14,
      slug: 'marsh-v-chambers',
      courtId: null,
    });
    expect(opinions.every((o) => o.id === o.clusterId)).toBe(true);
    expect(opinionsCited.filter((e) => e.citedOpinionId === 111014)).toHaveLength(14);
  });

  it('reads the court table fixture', () => {
    const courts = courtsFromFixture(sample('courtlistener-fixtures/court_data.json'));
    expect(courts).toHaveLength(458);
    expect(courts.find((c) => c.id === 'scotus')).toMatchObject({ citationString: 'SCOTUS', jurisdiction: 'F' });
  });

  it('stores a printed citation under its edition’s own abbreviation, and refuses what is not a citation', () => {
    expect(citationRow('97 F. 3d 553', 1)).toEqual({ volume: '97', reporter: 'F.3d', page: '553', type: 1 });
    expect(citationRow('2007 ME 30', 8)).toEqual({ volume: '2007', reporter: 'ME', page: '30', type: 8 });
    expect(citationRow('no citation here', 1)).toBeNull();
  });

  it('reads the citations html_with_citations marks, each with the opinion it links to, as a trimmed record carries them', () => {
    const record = sample('courtlistener-api-v3/2854091.json') as ApiV3Record;
    const marked = markedCitations(record.HTMLtext!);
    expect(marked.length).toBe([...markCounts(record.HTMLtext!).values()].reduce((a, b) => a + b, 0));
    expect(marked.filter(([id]) => id === 110676)).toEqual([
      [110676, '455', 'U.S.', '745'],
      [110676, '102', 'S. Ct.', '1388'],
    ]);
    // The same record without its text, as bin/derive-caselaw-records.ts writes it: the same rows and depths.
    const { HTMLtext, ...rest } = record;
    const trimmed = rowsFromApiV3({ ...rest, HTMLtext_citations: marked });
    expect(trimmed.batch).toEqual(rowsFromApiV3(record).batch);
    expect(trimmed.marked).toEqual(marked);
    expect(linkedCitationRow([110676, '102', 'S. Ct.', '1388'])).toEqual({ volume: '102', reporter: 'S. Ct.', page: '1388', type: 1 });
    expect(linkedCitationRow([1, '12', 'Nowhere Rep.', '3'])).toBeNull();
  });

  it('reads the court and precedential status of the network’s clusters from CourtListener’s fixture of it, and no docket', () => {
    const facts = clusterFactsFromFixture(sample('courtlistener-fixtures/scotus_map_data.subset.json'));
    expect(facts).toHaveLength(17);
    expect(facts.every((f) => f.courtId === 'scotus' && f.precedentialStatus === 'Published')).toBe(true);
    const network = rowsFromNetwork(sample('courtlistener-fixtures/tog_to_marsh.json'));
    expect(new Set(facts.map((f) => f.id))).toEqual(new Set(network.clusters.map((c) => c.id)));
  });
});
