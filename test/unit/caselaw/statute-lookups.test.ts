import { describe, expect, it } from 'vitest';
import {
  type LawLookup,
  resolveStatutes,
  STATUTE_LOOKUPS_IN_FLIGHT,
  STATUTE_LOOKUPS_IN_PROCESS,
  splitStatutes,
  statuteLookupsInFlight,
} from '#caselaw/statutes.ts';
import type { LookupAnswer } from '#law/lookup.ts';
import { AppError } from '#shared/errors.ts';

/** A lookup that answers after a turn of the event loop, counting the lookups in flight and each citation asked. */
function countingLookup() {
  const asked: string[] = [];
  let inFlight = 0;
  let most = 0;
  const lookup: LawLookup = async ({ citation }) => {
    asked.push(citation);
    most = Math.max(most, ++inFlight);
    await new Promise((done) => setTimeout(done, 1));
    inFlight--;
    if (citation.startsWith('28 ')) throw new AppError('no_edition_on_file', `${citation} is not carried on that date.`, {});
    return { citation } as unknown as LookupAnswer;
  };
  return { lookup, asked, most: () => most };
}

describe('statute lookups of one request', () => {
  it(`answers 250 distinct citations in order with at most ${STATUTE_LOOKUPS_IN_FLIGHT} lookups in flight, one lookup each`, async () => {
    const printed = Array.from({ length: 250 }, (_, i) => (i % 2 === 0 ? `1 U.S.C. § ${i + 1}` : `28 U.S.C. § ${i + 1}`));
    const { statutes } = splitStatutes({ text: `See ${printed.join('; ')}.` });
    expect(statutes).toHaveLength(250);
    const { lookup, asked, most } = countingLookup();

    const resolved = await resolveStatutes(lookup, statutes, '2020-01-01');

    expect(most()).toBe(STATUTE_LOOKUPS_IN_FLIGHT);
    expect(asked.sort()).toEqual([...printed].sort());
    expect(resolved.map((r) => r.parsed.text)).toEqual(printed);
    resolved.forEach((r, i) => {
      if (i % 2 === 0) expect(r).toMatchObject({ answer: { citation: printed[i] }, miss: null, asOf: '2020-01-01' });
      else expect(r).toMatchObject({ answer: null, miss: { code: 'no_edition_on_file' } });
    });
  });

  it(`keeps at most ${STATUTE_LOOKUPS_IN_PROCESS} lookups in flight across concurrent requests, each answered in full`, async () => {
    const texts = Array.from(
      { length: 6 },
      (_, r) => `See ${Array.from({ length: 40 }, (_, i) => `28 U.S.C. § ${r * 100 + i + 1}`).join('; ')}.`,
    );
    const { lookup, asked, most } = countingLookup();

    const all = await Promise.all(texts.map((text) => resolveStatutes(lookup, splitStatutes({ text }).statutes, '2020-01-01')));

    expect(most()).toBe(STATUTE_LOOKUPS_IN_PROCESS);
    expect(statuteLookupsInFlight()).toBe(0);
    expect(asked).toHaveLength(240);
    for (const resolved of all) expect(resolved.every((r) => r.miss?.code === 'no_edition_on_file')).toBe(true);
  });

  it('looks a citation printed several times up once, and answers each place it is printed', async () => {
    const { statutes } = splitStatutes({ text: '1 U.S.C. § 1; 1 U.S.C. § 1; 1 U.S.C. §§ 1, 2.' });
    const { lookup, asked } = countingLookup();
    const resolved = await resolveStatutes(lookup, statutes, '2020-01-01');
    expect(resolved).toHaveLength(4);
    expect(asked.sort()).toEqual(['1 U.S.C. § 1', '1 U.S.C. § 2']);
  });

  it('fails the request on a failure that is not one of the lookup’s 404s, as a lookup would fail', async () => {
    const { statutes } = splitStatutes({ text: '1 U.S.C. § 1; 1 U.S.C. § 2.' });
    const failing: LawLookup = async () => {
      throw new AppError('statutes_unavailable', 'The store did not answer.', {});
    };
    await expect(resolveStatutes(failing, statutes, '2020-01-01')).rejects.toThrow(/did not answer/);
  });
});
