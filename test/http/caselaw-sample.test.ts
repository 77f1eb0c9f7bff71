/**
 * The bundled CourtListener sample as a first start loads it (data/sample/sources.json), over a real socket: case
 * records with their court, parallel citations and precedential status, the cases citing them, and the case-name
 * check of citation lookup on real sentences of the opinions that cite them (test/fixtures/case-names).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssueKeyParams, issueKey } from '#accounts/issue-key.ts';
import { type LocalServer, loadCaseLawSampleIfNeeded, serveLocal } from '#local/local-runtime.ts';
import { MARSH_CITED_BY } from '../contract/caselaw-store.contract.ts';

let server: LocalServer;
const clock = new Date('2026-11-24T12:00:00Z');
const log: string[] = [];
const sentences = (
  JSON.parse(readFileSync(new URL('../fixtures/case-names/courtlistener-names.json', import.meta.url), 'utf8')) as {
    sentences: Array<{ opinion: number; text: string }>;
  }
).sentences;
const sentence = (opinion: number) => sentences.find((s) => s.opinion === opinion)!.text;

beforeAll(async () => {
  server = await serveLocal({ dataDir: null, port: 0, sample: false, schedules: false, now: () => clock });
  await loadCaseLawSampleIfNeeded(server.stores, (line) => log.push(line));
});
afterAll(() => server?.close());

const keyWith = async (params: Partial<IssueKeyParams> = {}) =>
  (await issueKey(server.stores.accounts, { name: 'caselaw-sample', limits: { daily: 1000 }, ...params }, clock)).key;
const call = async (method: 'GET' | 'POST', path: string, key: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('the bundled case-law sample, out of the box', () => {
  it('loads every bundled record: 938 clusters, the network’s court from CourtListener’s fixture', () => {
    expect(log.join('\n')).toMatch(
      /loaded the case-law sample: 422 courts, 938 clusters, \d+ citations, \d+ citing edges, data as of 2018-06-20/,
    );
  });

  it('gives Marsh v. Chambers with its court and precedential status, and says it has no citation on file rather than invent one', async () => {
    const key = await keyWith();
    const marsh = await call('GET', '/law/cases/111014', key);
    expect(marsh.status).toBe(200);
    expect(marsh.body.result).toMatchObject({
      id: 111014,
      case_name: 'Marsh v. Chambers',
      court: 'scotus',
      precedential_status: 'Published',
      docket_id: null,
      citations: [],
      cited_by_count: 14,
    });
  });

  it('lists the cases citing Marsh v. Chambers with their court and status, and gives Lee v. Weisman the citations CourtListener linked to it', async () => {
    const key = await keyWith();
    const page = await call('GET', '/law/cases/111014/cited-by?limit=100', key);
    expect(page.status).toBe(200);
    expect(page.body.results.map((r: any) => r.id)).toEqual(MARSH_CITED_BY);
    expect(page.body.results.every((r: any) => r.court === 'scotus' && r.precedential_status === 'Published')).toBe(true);
    // Opinion 793086 (8th Cir. 2006) cites it as `505 U.S. 577, … 112 S. Ct. 2649, 120 L. Ed. 2d 467`, each linked to it.
    const lee = page.body.results.find((r: any) => r.id === 112779);
    expect(lee.citations).toEqual([
      { volume: '120', reporter: 'L. Ed. 2d', page: '467', type: 1 },
      { volume: '112', reporter: 'S. Ct.', page: '2649', type: 1 },
      { volume: '505', reporter: 'U.S.', page: '577', type: 1 },
    ]);
    const citingLee = await call('GET', '/law/cases/112779/cited-by?limit=100', key);
    expect(citingLee.body.results.map((r: any) => [r.id, r.court, r.depth])).toContainEqual([793086, 'ca8', 3]);
  });

  it('answers a case of the added records with its court, parallel citations and status, and the case citing it with its depth', async () => {
    const key = await keyWith();
    const oconnor = await call('GET', '/law/cases/2123854', key);
    expect(oconnor.body.result).toMatchObject({
      case_name: "MATTER OF O'CONNOR v. Scarpino",
      court: 'ny',
      precedential_status: 'Published',
      citations: expect.arrayContaining([
        { volume: '83', reporter: 'N.Y.2d', page: '919', type: 2 },
        { volume: '638', reporter: 'N.E.2d', page: '950', type: 3 },
      ]),
      cited_by_count: 1,
    });
    const citing = await call('GET', '/law/cases/2123854/cited-by', key);
    expect(citing.body.results.map((r: any) => [r.id, r.case_name, r.court, r.depth])).toEqual([[1998220, 'People v. Thompson', 'ny', 1]]);
    // Alcott Rehabilitation Hosp. v. Superior Court marks Bennett v. Shahhal 14 times.
    const bennett = await call('GET', '/law/cases/2300663/cited-by', key);
    expect(bennett.body.results.map((r: any) => [r.id, r.court, r.depth])).toEqual([[2282388, 'calctapp', 14]]);
  });
});

describe('is it the case the text names? (real sentences of the citing opinions)', () => {
  it('says the real name matches, on every citation of a parallel group, and still reports a name whose citation is not found', async () => {
    const key = await keyWith();
    const lee = await call('POST', '/law/citations/lookup', key, { text: sentence(793086) });
    expect(lee.status).toBe(200);
    const text = sentence(793086);
    const codePoints = [...text];
    const rows = lee.body.results.map((r: any) => [
      r.citation,
      r.status,
      r.case_name_check?.name ?? null,
      r.case_name_check?.matches ?? null,
      r.clusters[0]?.case_name_score ?? null,
    ]);
    expect(rows).toEqual([
      ['505 U.S. 577', 200, 'Lee v. Weisman', true, 1],
      ['112 S. Ct. 2649', 200, 'Lee v. Weisman', true, 1],
      ['120 L. Ed. 2d 467', 200, 'Lee v. Weisman', true, 1],
      ['372 F.3d 979', 404, "Murphy v. Mo. Dep't of Corr.", null, null],
      ['543 U.S. 991', 404, null, null, null],
      ['125 S. Ct. 501', 404, null, null, null],
      ['160 L. Ed. 2d 378', 404, null, null, null],
    ]);
    const check = lee.body.results[0].case_name_check;
    expect(check).toEqual({
      name: 'Lee v. Weisman',
      start_index: check.start_index,
      end_index: check.end_index,
      matches: true,
      score: 1,
      cluster_id: 112779,
    });
    expect(codePoints.slice(check.start_index, check.end_index).join('')).toBe('Lee v. Weisman');
    expect(lee.body.results[3].case_name_check).toMatchObject({ score: null, matches: null, cluster_id: null });
    expect(lee.body.provenance.resolution).toMatch(/case_name_check/);

    const oconnor = await call('POST', '/law/citations/lookup', key, { text: sentence(1998220) });
    expect(oconnor.body.results[0]).toMatchObject({
      status: 200,
      case_name_check: { name: "Matter of O'Connor v Scarpino", matches: true, score: 1, cluster_id: 2123854 },
    });
    const bennett = await call('POST', '/law/citations/lookup', key, { text: sentence(2282388) });
    expect(bennett.body.results.map((r: any) => [r.citation, r.status, r.case_name_check.name, r.case_name_check.matches])).toEqual([
      ['75 Cal. App. 4th 384', 200, 'Bennett v. Shahhal', true],
      ['89 Cal. Rptr. 2d 272', 200, 'Bennett v. Shahhal', true],
    ]);
  });

  it('says a real citation under another real case’s name does not match: the hallucination signature', async () => {
    const key = await keyWith();
    // The names of other cases of the same opinions, put before the citations.
    const swaps: Array<[number, string, string]> = [
      [793086, 'Lee v. Weisman', "Murphy v. Mo. Dep't of Corr."],
      [1998220, "Matter of O'Connor v Scarpino", 'People v. Thompson'],
      [2282388, 'Bennett v. Shahhal', 'Alcott Rehabilitation Hosp. v. Superior Court'],
    ];
    for (const [opinion, real, other] of swaps) {
      const text = sentence(opinion).replace(real, other);
      const answer = await call('POST', '/law/citations/lookup', key, { text });
      const found = answer.body.results.find((r: any) => r.status === 200);
      expect([other, found.case_name_check.name, found.case_name_check.matches]).toEqual([other, other, false]);
      expect(found.case_name_check.score).toBeLessThan(0.6);
      expect(found.clusters[0].case_name_score).toBe(found.case_name_check.score);
    }
  });

  it('answers null when the text names no case, and reads the name of a citations item given as a string', async () => {
    const key = await keyWith();
    const bare = await call('POST', '/law/citations/lookup', key, { text: 'as the court held at 83 N.Y.2d 919' });
    expect(bare.body.results[0]).toMatchObject({ status: 200, case_name_check: null });
    expect(bare.body.results[0].clusters[0].case_name_score).toBeUndefined();
    const items = await call('POST', '/law/citations/lookup', key, {
      citations: ["Matter of O'Connor v Scarpino, 83 N.Y.2d 919", { volume: '83', reporter: 'N.Y.2d', page: '919' }],
    });
    expect(items.body.results.map((r: any) => r.case_name_check?.matches ?? null)).toEqual([true, null]);
  });
});
