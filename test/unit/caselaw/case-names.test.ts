/**
 * Is it the case the text names? Real names read from real opinions (test/fixtures/case-names, with provenance),
 * compared with CourtListener's names for the cases they cite; the same names swapped onto other cases must not match.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caseNameScore, checkCaseName, MATCH_AT, nameBefore } from '#caselaw/case-names.ts';
import { extractCitations } from '#caselaw/citations/extract.ts';
import type { ClusterRecord } from '#caselaw/ports.ts';
import { parseRequest, resolveCitations } from '#caselaw/resolve.ts';

interface Fixture {
  sentences: Array<{ opinion: number; text: string }>;
  printed: Array<{ opinion: number; text: string; citedOpinion: number; citedSlug: string }>;
  clusterNames: Array<{ opinion: number; cluster: number; case_name: string; case_name_full: string; docket_case_name: string }>;
}
const fixture = JSON.parse(readFileSync(new URL('../../fixtures/case-names/courtlistener-names.json', import.meta.url), 'utf8')) as Fixture;

/** Misses of the check on real opinions, read one by one (bench/case-name-accuracy.ts), and names that matched another case. */
interface Misses {
  printed: Array<{ opinion: number; kind: string; text: string; citedSlug: string; name: string }>;
  swapped: Array<{ name: string; opinion: number; citedSlug: string; otherSlug: string; why: string }>;
}
const misses = JSON.parse(readFileSync(new URL('../../fixtures/case-names/courtlistener-misses.json', import.meta.url), 'utf8')) as Misses;

const named = (caseName: string, caseNameFull = '', caseNameShort = '') => ({ caseName, caseNameFull, caseNameShort });
/** CourtListener's name for a case as its link slug spells it (`serna-v-colorado-department`). */
const slugName = (slug: string) => slug.replace(/-v-/, ' v. ').replace(/-/g, ' ');
/** The name before the last full citation of a snippet. */
const nameAtEnd = (text: string) => {
  const cites = extractCitations(text);
  const last = cites.filter((c) => c.kind === 'full').at(-1)!;
  const index = cites.indexOf(last);
  return nameBefore(text, last.start, index > 0 ? cites[index - 1]!.end : 0);
};

describe('reading the name printed before a citation', () => {
  it('reads the name as printed, never past the previous citation, a signal or the sentence before', () => {
    const names = fixture.printed.map((p) => {
      const name = nameAtEnd(p.text);
      expect(name && p.text.slice(name.start, name.end)).toBe(name?.name);
      return name?.name;
    });
    expect(names).toEqual([
      "Arkansas Dep't of Human Servs. v. Farris", // after `… (1993);`
      "Castaneda v. Tex. Dep't of Agriculture",
      "Butcher v. Dep't of Treasury",
      "U-Haul Int'l, Inc. v. Jartran, Inc.", // after a closing quote and a sentence
      'Noerr Motor Freight, Inc. v. Eastern R. R. Presidents Conference',
      "Union Hill Homes Ass'n, Inc. v. RET Dev. Corp.", // after `(quoting`
      "Bartlett Cooperative Ass'n v Patton",
      "Gartside v Young Men's Christian Ass'n",
      "Serna v. Colorado Dep't of Corr.", // after `See`
      'Mobil Oil Corp. v. Commissioner of Taxes', // after `see`
      'South Tippecanoe School Building Corp. v. Shambaugh & Son, Inc.', // after a sentence's `In`
      'McMillan v. American Gen. Fin. Corp.', // a year printed before the citation, an opening parenthesis
    ]);
  });

  it('gives every citation of a parallel group the name before the group, and none to a citation without one', () => {
    const [oconnor, bennett, lee] = fixture.sentences;
    const names = (text: string) => parseRequest({ text }).map((p) => [p.citation, p.namedAs?.name ?? null]);
    expect(names(oconnor!.text)).toEqual([['83 N.Y.2d 919', "Matter of O'Connor v Scarpino"]]);
    expect(names(bennett!.text)).toEqual([
      ['75 Cal. App. 4th 384', 'Bennett v. Shahhal'],
      ['89 Cal. Rptr. 2d 272', 'Bennett v. Shahhal'],
    ]);
    expect(names(lee!.text)).toEqual([
      ['505 U.S. 577', 'Lee v. Weisman'],
      ['112 S. Ct. 2649', 'Lee v. Weisman'],
      ['120 L. Ed. 2d 467', 'Lee v. Weisman'],
      ['372 F.3d 979', "Murphy v. Mo. Dep't of Corr."],
      ['543 U.S. 991', null], // `cert. denied, 543 U.S. 991`: no name
      ['125 S. Ct. 501', null],
      ['160 L. Ed. 2d 378', null],
    ]);
    expect(parseRequest({ text: 'the court relies on 505 U.S. 577' })[0]!.namedAs).toBeUndefined();
    expect(parseRequest({ citations: ["Matter of O'Connor v Scarpino, 83 N.Y.2d 919"] })[0]!.namedAs?.name).toBe(
      "Matter of O'Connor v Scarpino",
    );
  });

  it('counts the name offsets in code points, as the citation offsets', () => {
    const text = `😀 ${fixture.sentences[0]!.text}`;
    const [p] = parseRequest({ text });
    expect([...text].slice(p!.namedAs!.start, p!.namedAs!.end).join('')).toBe("Matter of O'Connor v Scarpino");
  });
});

describe('scoring the name against the cluster names', () => {
  it('matches real names printed with the usual abbreviations (Dep’t, Int’l, R.R., Ass’n, Corp., Co.) to CourtListener’s name for the case cited', () => {
    for (const p of fixture.printed) {
      const name = nameAtEnd(p.text)!.name;
      expect([name, caseNameScore(name, named(slugName(p.citedSlug))) >= MATCH_AT]).toEqual([name, true]);
    }
  });

  it('matches a cluster’s abbreviated name to its full name (Co., Corp., Ass’n, Assn., Mut., Am., E., Rail.)', () => {
    for (const c of fixture.clusterNames) {
      const score = caseNameScore(c.case_name, named('', c.case_name_full));
      expect([c.case_name, score >= MATCH_AT]).toEqual([c.case_name, true]);
    }
  });

  it('does not match a real name swapped onto another real case: the hallucination signature', () => {
    const names = fixture.printed.map((p) => nameAtEnd(p.text)!.name);
    for (const [i, name] of names.entries()) {
      for (const [j, other] of fixture.printed.entries()) {
        if (i === j) continue;
        const score = caseNameScore(name, named(slugName(other.citedSlug)));
        expect([name, other.citedSlug, score < MATCH_AT]).toEqual([name, other.citedSlug, true]);
      }
    }
    for (const c of fixture.clusterNames) {
      for (const other of fixture.clusterNames) {
        if (other === c) continue;
        const score = caseNameScore(c.case_name, named(other.case_name, other.case_name_full, other.docket_case_name));
        expect([c.case_name, other.case_name, score < MATCH_AT]).toEqual([c.case_name, other.case_name, true]);
      }
    }
  });

  it('takes the best of case_name, case_name_short and case_name_full, and parties either way round at a discount', () => {
    // Opinion 793086's cluster has no case_name: its name is in case_name_full only.
    const munson = named('', 'James Munson v. Larry Norris, Director, Arkansas Department of Correction Ray Hobbs');
    expect(caseNameScore('Munson v. Norris', munson)).toBe(1);
    expect(caseNameScore('Norris v. Munson', munson)).toBe(0.9);
    expect(caseNameScore('Munson v. Hobbs', munson)).toBeGreaterThanOrEqual(MATCH_AT);
    expect(caseNameScore('Murphy v. Norris', munson)).toBe(0);
  });

  it('says the check of a result: the best cluster, its score, and null when nothing was found to compare', () => {
    const name = { name: 'Bennett v. Shahhal', start: 0, end: 18 };
    const bennett = { id: 2300663, ...named('Bennett v. SHAHHAL', '', 'Bennett') };
    const alcott = { id: 2282388, ...named('ALCOTT REHABILITATION HOSP. v. Superior Court') };
    const scored = (...clusters: (typeof alcott)[]) => clusters.map((c) => ({ id: c.id, score: caseNameScore(name.name, c) }));
    expect(checkCaseName(name, scored(alcott, bennett))).toEqual({ ...name, score: 1, matches: true, clusterId: 2300663 });
    expect(checkCaseName(name, scored(alcott))).toEqual({ ...name, score: 0, matches: false, clusterId: 2282388 });
    expect(checkCaseName(name, scored())).toEqual({ ...name, score: null, matches: null, clusterId: null });
  });
});

describe('the misses read one by one on real opinions', () => {
  it('reads the name whole: over line breaks, `on` and `and` inside it, a comma before `L.P.`, not past a sentence ending in a word an abbreviation stands for', () => {
    // As the lookup reads them: a parallel citation gets the name before its group.
    for (const m of misses.printed) expect([m.kind, parseRequest({ text: m.text }).at(-1)?.namedAs?.name]).toEqual([m.kind, m.name]);
  });

  it('matches each to CourtListener’s name for the case cited (misspellings, words run together, acronyms, abbreviations by their letters, `Com.`, initials)', () => {
    for (const m of misses.printed)
      expect([m.kind, m.name, caseNameScore(m.name, named(slugName(m.citedSlug))) >= MATCH_AT]).toEqual([m.kind, m.name, true]);
  });

  it('still does not match a real name to another case the same opinion cites', () => {
    for (const m of misses.swapped) {
      expect([m.name, m.why, caseNameScore(m.name, named(slugName(m.citedSlug))) >= MATCH_AT]).toEqual([m.name, m.why, true]);
      expect([m.name, m.otherSlug, caseNameScore(m.name, named(slugName(m.otherSlug))) < MATCH_AT]).toEqual([m.name, m.otherSlug, true]);
    }
  });

  it('reads a cluster name whose middle initial is a `V.` at each versus (`Fred V. Cherry v. The United States`)', () => {
    expect(caseNameScore('Cherry v. United States', named('', 'Fred V. Cherry v. The United States'))).toBe(1);
    expect(caseNameScore('Cherry v. Smith', named('', 'Fred V. Cherry v. The United States'))).toBe(0);
  });

  it('cuts an `and` between two names: the name is the one cited', () => {
    const text = 'See Roe v. Wade and Doe v. Bolton, 410 U.S. 179';
    expect(nameAtEnd(text)?.name).toBe('Doe v. Bolton');
  });
});

describe('an ambiguous citation (300)', () => {
  // CourtListener holds some cases twice (a duplicate cluster per source) and some reporters print several cases on
  // one page; a replica answering two clusters for one citation is that state. The clusters are real records.
  const cluster = (id: number, caseName: string, citationCount: number): ClusterRecord => ({
    id,
    docketId: null,
    courtId: 'calctapp',
    caseName,
    caseNameFull: '',
    caseNameShort: '',
    dateFiled: '1999-11-04',
    slug: '',
    precedentialStatus: 'Published',
    citationCount,
    judges: '',
    courtCitationString: '',
    citations: [{ volume: '89', reporter: 'Cal. Rptr. 2d', page: '272', type: 2 }],
  });
  const store = (records: ClusterRecord[]) =>
    ({
      clustersByCitation: async () => new Map([['89 Cal. Rptr. 2d 272', records.map((r) => r.id)]]),
      clusters: async (ids: readonly number[]) => records.filter((r) => ids.includes(r.id)),
      courts: async () => [],
    }) as never;

  it('lists first the cluster whose name the text gives, before the more cited one', async () => {
    const records = [cluster(2282388, 'ALCOTT REHABILITATION HOSP. v. Superior Court', 9), cluster(2300663, 'Bennett v. SHAHHAL', 0)];
    const [named300] = await resolveCitations(store(records), parseRequest({ text: fixture.sentences[1]!.text }).slice(1));
    expect(named300!.status).toBe(300);
    expect(named300!.clusters.map((c) => c.id)).toEqual([2300663, 2282388]);
    expect(named300!.errorMessage).toMatch(/case name the text gives/);
    const [unnamed] = await resolveCitations(store(records), parseRequest({ text: '89 Cal. Rptr. 2d 272' }));
    expect(unnamed!.clusters.map((c) => c.id)).toEqual([2282388, 2300663]); // most cited first, as before
  });
});
