/**
 * Citation lookups of texts dense with statute and case citations must not stall the server (issue 29): each statute
 * citation is a lookup of the version store, and a request's lookups are bounded in flight per request and across
 * the process, so cheap lookups beside several such requests keep answering. The cap of 250 citations counts both
 * kinds, is checked before anything is reserved, and is answered exactly at and past it. A server of its own (the
 * sample's Title 1 and the case-law sample), so the attack's load is measured against nothing else's.
 */
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { MAX_CITATIONS, MAX_TEXT_CHARS } from '#caselaw/resolve.ts';
import { STATUTE_LOOKUPS_IN_FLIGHT, STATUTE_LOOKUPS_IN_PROCESS } from '#caselaw/statutes.ts';
import { runIngest } from '#ingest/jobs.ts';
import { type LocalServer, loadCaseLawSampleIfNeeded, serveLocal } from '#local/local-runtime.ts';
import { besideLookups, CHEAP_MAX_MS, CHEAP_P50_MS } from '../support/beside-lookups.ts';

const USLM = ['usc01@113-31.xml', 'usc01@117-80.xml'].map((f) => fileURLToPath(new URL(`../../data/sample/uslm/${f}`, import.meta.url)));
const CONCURRENT = 8;
const ROUNDS = 3;

let server: LocalServer;
let attackKey: string;
let cheapKey: string;
let billedKey: string;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function lookup(body: unknown, key: string): Promise<Answer> {
  const res = await fetch(`${server.url}/law/citations/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
const dayLeft = (headers: Headers) => Number(/"day";r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

/** Case citations the case-law sample holds (and parallels it does not): one batched query per request. */
const CASES = ['505 U.S. 577', '112 S. Ct. 2649', '120 L. Ed. 2d 467', '372 F.3d 979', '75 Cal. App. 4th 384', '267 Ga. 9'];

/**
 * A text of `statutes` distinct statute citations (the eight sections of Title 1 carried, then sections of titles the
 * sample lacks: each its own lookup) and `cases` case citations, padded with prose up to the text limit.
 */
function denseText(seed: number, statutes: number, cases: number): string {
  const parts: string[] = [];
  for (let i = 0; i < statutes; i++) {
    parts.push(i < 8 ? `1 U.S.C. § ${i + 1}` : `${[28, 42, 18, 26][i % 4]} U.S.C. § ${seed * 1_000 + i}`);
  }
  for (let i = 0; i < cases; i++) parts.splice(i * 5, 0, `Lee v. Weisman, ${CASES[i % CASES.length]} (1992)`);
  const cited = `See ${parts.join('; ')}.`;
  const filler = ' The court read the statute as the parties had briefed it, and the record bears that reading out.';
  let text = cited;
  while (text.length + filler.length <= MAX_TEXT_CHARS) text += filler;
  return text;
}

beforeAll(async () => {
  server = await serveLocal({
    dataDir: null,
    port: 0,
    sample: false,
    schedules: false,
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
  });
  await runIngest(server.stores, { kind: 'uslm', files: USLM });
  await loadCaseLawSampleIfNeeded(server.stores, () => undefined);
  const issue = async (name: string, daily: number) =>
    (await issueKey(server.stores.accounts, { name, limits: { perMinute: 120, daily, monthly: 10_000_000 } }, new Date())).key;
  attackKey = await issue('attack', 1_000_000);
  cheapKey = await issue('cheap', 1_000_000);
  billedKey = await issue('billed', 1_000);
}, 180_000);
afterAll(async () => {
  await server?.close();
});

describe('texts dense with statute and case citations', () => {
  it(`${CONCURRENT} concurrent texts of ${MAX_CITATIONS} citations each, ${ROUNDS} rounds: cheap lookups stay prompt`, async () => {
    const bodies = Array.from({ length: CONCURRENT * ROUNDS }, (_, i) =>
      JSON.stringify({ text: denseText(i + 1, MAX_CITATIONS - 20, 20), asOf: '2019-03-01' }),
    );
    for (const b of bodies) expect(JSON.parse(b).text.length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    // Each statute lookup counted as it runs (the real lookup, wrapped), every request's together. The SQLite stores
    // answer a lookup in microseconds, so each is held a few ms first, as a store's round trip would: otherwise they
    // end before others start, and the bound on lookups in flight would never be reached, nor shown to hold.
    const lawLookup = server.services.lawLookup!;
    let inFlight = 0;
    let peak = 0;
    server.services.lawLookup = async (params) => {
      peak = Math.max(peak, ++inFlight);
      try {
        await new Promise((done) => setTimeout(done, 2));
        return await lawLookup(params);
      } finally {
        inFlight--;
      }
    };

    const run = await besideLookups(
      { url: server.url, key: cheapKey },
      async () => {
        const answers: Answer[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const batch = bodies.slice(round * CONCURRENT, (round + 1) * CONCURRENT);
          answers.push(...(await Promise.all(batch.map((b) => lookup(b, attackKey)))));
        }
        return answers;
      },
      // At most the key's 120 a minute.
      { everyMs: 500 },
    );
    server.services.lawLookup = lawLookup;
    console.log(
      `dense citation texts: cheap lookups p50 ${run.p50.toFixed(0)} ms, max ${run.max.toFixed(0)} ms, peak ${peak} lookups in flight`,
    );

    for (const a of run.attack) {
      expect(a.status, JSON.stringify(a.body).slice(0, 300)).toBe(200);
      expect(a.body.statutes).toHaveLength(MAX_CITATIONS - 20);
      expect(a.body.results).toHaveLength(20);
      expect(a.body.statutes.slice(0, 8).map((s: any) => s.status)).toEqual(Array(8).fill(200));
      for (const s of a.body.statutes.slice(8)) expect(s).toMatchObject({ status: 404, error: { code: 'no_edition_on_file' } });
    }
    expect(run.statuses.every((s) => s === 200)).toBe(true);
    expect(peak).toBeGreaterThan(STATUTE_LOOKUPS_IN_FLIGHT);
    expect(peak).toBeLessThanOrEqual(STATUTE_LOOKUPS_IN_PROCESS);
    expect(run.p50).toBeLessThan(CHEAP_P50_MS);
    expect(run.max).toBeLessThan(CHEAP_MAX_MS);
  }, 180_000);
});

describe('the cap of 250 citations, cases and statutes together', () => {
  it('resolves exactly 250 and bills 250; 251 (as text or as citations) is 400 too_many at once and bills nothing', async () => {
    const at = denseText(90, MAX_CITATIONS - 10, 10);
    const over = denseText(91, MAX_CITATIONS - 9, 10);
    const overList = [...Array.from({ length: 241 }, (_, i) => `42 U.S.C. § ${i + 1}`), ...Array(10).fill('505 U.S. 577')];

    const before = await lookup({ text: 'See 1 U.S.C. § 1.' }, billedKey);
    expect(before.status).toBe(200);
    const start = dayLeft(before.headers);

    const refused = await lookup({ text: over, asOf: '2019-03-01' }, billedKey);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'too_many', citations: 251, limit: MAX_CITATIONS });
    expect(refused.body.error.message).toBe(
      '251 citations (10 of cases, 241 of statutes and rules) were found in the text; at most 250 are resolved per request.',
    );
    expect(refused.body.error.requestId).toEqual(expect.any(String));
    const refusedList = await lookup({ citations: overList, asOf: '2019-03-01' }, billedKey);
    expect(refusedList.status).toBe(400);
    expect(refusedList.body.error).toMatchObject({ code: 'too_many', citations: 251, limit: MAX_CITATIONS });
    // A list is counted before any of its items is read (issue 29, row 3), so its message cannot tell cases from statutes.
    expect(refusedList.body.error.message).toBe('citations must be at most 250 items (got 251 items).');

    const afterRefusals = await lookup({ text: 'See 1 U.S.C. § 1.' }, billedKey);
    expect(dayLeft(afterRefusals.headers)).toBe(start - 1);

    const accepted = await lookup({ text: at, asOf: '2019-03-01' }, billedKey);
    expect(accepted.status, JSON.stringify(accepted.body).slice(0, 300)).toBe(200);
    expect(accepted.body.statutes).toHaveLength(MAX_CITATIONS - 10);
    expect(accepted.body.results).toHaveLength(10);
    expect(dayLeft(accepted.headers)).toBe(start - 1 - MAX_CITATIONS);

    const after = await lookup({ text: 'See 1 U.S.C. § 1.' }, billedKey);
    expect(dayLeft(after.headers)).toBe(start - 2 - MAX_CITATIONS);
  }, 60_000);
});
