import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveSpans, type Observation, planWrites, type Span, spanOn, withObservation } from '#law/history.ts';

/** A toy version store with the production lookup rule: latest item starting on or before D, in force if D < end. */
type Items = Map<string, { to: string | null; identity: string }>;

function lookup(items: Items, date: string): string | null {
  let best: string | undefined;
  for (const from of items.keys()) if (from <= date && (best === undefined || from > best)) best = from;
  if (best === undefined) return null;
  const item = items.get(best)!;
  return item.to === null || date < item.to ? item.identity : null;
}

const itemsOf = (spans: Span[]): Items => new Map(spans.map((s) => [s.from, { to: s.to, identity: s.identity }]));
const DATES = ['2001-01-01', '2002-01-01', '2003-01-01', '2004-01-01', '2005-01-01', '2006-01-01'];
const PROBES = ['2000-06-01', ...DATES.flatMap((d) => [d, `${d.slice(0, 4)}-06-01`])];

const observationArb = fc.record({
  date: fc.constantFrom(...DATES),
  identity: fc.option(fc.constantFrom('A', 'B', 'C'), { nil: null, freq: 3 }),
});

/** Some editions speak only for part of the time to the next one (a horizon of a few months around their date). */
const withHorizon = (o: { date: string; identity: string | null }, months: number | null): Omit<Observation, 'editionId'> =>
  months === null
    ? o
    : {
        ...o,
        horizon: { from: `${Number(o.date.slice(0, 4)) - 1}-12-01`, until: `${o.date.slice(0, 4)}-${String(months).padStart(2, '0')}-01` },
      };
const horizonObservationArb = fc
  .tuple(observationArb, fc.option(fc.integer({ min: 2, max: 12 }), { nil: null }))
  .map(([o, months]) => withHorizon(o, months));

describe('deriveSpans', () => {
  it('starts a version at the first edition showing a text and ends it at the next different or absent one', () => {
    const obs: Observation[] = [
      { date: '2013-07-26', editionId: 'e1', identity: 'A' },
      { date: '2016-12-01', editionId: 'e2', identity: 'A' },
      { date: '2022-01-27', editionId: 'e3', identity: 'B' },
    ];
    expect(deriveSpans(obs)).toEqual([
      { from: '2013-07-26', to: '2022-01-27', identity: 'A', editionId: 'e1' },
      { from: '2022-01-27', to: null, identity: 'B', editionId: 'e3' },
    ]);
  });

  it('ends the last version at an edition that no longer has the section', () => {
    const obs: Observation[] = [
      { date: '2024-03-18', editionId: 'a', identity: 'A' },
      { date: '2024-03-20', editionId: 'b', identity: 'B' },
      { date: '2024-06-22', editionId: 'c', identity: null },
    ];
    const spans = deriveSpans(obs);
    expect(spans.at(-1)).toMatchObject({ from: '2024-03-20', to: '2024-06-22' });
    expect(spanOn(spans, '2024-06-21')?.identity).toBe('B');
    expect(spanOn(spans, '2024-06-22')).toBeUndefined();
  });
});

describe('deriveSpans with horizons: gaps stay gaps', () => {
  // The federal rules' editions: each speaks for the December 1 before its date until the December 1 after it.
  const rules = (date: string, editionId: string, identity: string | null): Observation => {
    const year = Number(date.slice(0, 4));
    return { date, editionId, identity, horizon: { from: `${year - 1}-12-01`, until: `${year}-12-01` } };
  };

  it('runs a text on to the next edition when their horizons meet, as any compiled edition does', () => {
    const obs = [rules('2009-01-05', 'a', 'A'), rules('2010-02-01', 'b', 'B'), rules('2011-01-07', 'c', 'B')];
    expect(deriveSpans(obs)).toEqual([
      { from: '2009-01-05', to: '2010-02-01', identity: 'A', editionId: 'a' },
      { from: '2010-02-01', to: '2011-12-01', identity: 'B', editionId: 'b' },
    ]);
  });

  it('ends a text at its horizon when the next edition that shows another text is years later', () => {
    const obs: Observation[] = [rules('2012-01-03', 'gpo', 'A'), { date: '2024-12-01', editionId: 'md', identity: 'B' }];
    const spans = deriveSpans(obs);
    expect(spans).toEqual([
      { from: '2012-01-03', to: '2012-12-01', identity: 'A', editionId: 'gpo' },
      { from: '2024-12-01', to: null, identity: 'B', editionId: 'md' },
    ]);
    expect(spanOn(spans, '2012-11-30')?.identity).toBe('A');
    expect(spanOn(spans, '2012-12-01')).toBeUndefined();
    expect(spanOn(spans, '2019-06-01')).toBeUndefined();
  });

  it('ends at the horizon when the edition after the gap lacks the section, and after the last edition', () => {
    expect(deriveSpans([rules('2007-01-03', 'a', 'A'), rules('2009-01-05', 'b', null)])).toEqual([
      { from: '2007-01-03', to: '2007-12-01', identity: 'A', editionId: 'a' },
    ]);
    expect(deriveSpans([rules('2011-01-07', 'a', 'A'), rules('2012-01-03', 'b', 'A')])).toEqual([
      { from: '2011-01-07', to: '2012-12-01', identity: 'A', editionId: 'a' },
    ]);
  });

  it('keeps one version when the editions on both sides of a gap show the same text', () => {
    expect(deriveSpans([rules('2007-01-03', 'a', 'A'), rules('2009-01-05', 'b', 'A')])).toEqual([
      { from: '2007-01-03', to: '2009-12-01', identity: 'A', editionId: 'a' },
    ]);
  });

  it('leaves editions without a horizon as they were: a text runs to the next edition, however far', () => {
    const obs: Observation[] = [
      { date: '2013-07-26', editionId: 'a', identity: 'A' },
      { date: '2022-01-27', editionId: 'b', identity: 'B' },
    ];
    expect(deriveSpans(obs)[0]).toMatchObject({ from: '2013-07-26', to: '2022-01-27' });
  });
});

describe('planWrites', () => {
  it('keeps every lookup on the old or the new answer after each single write, for editions in any order (some with horizons)', () => {
    fc.assert(
      fc.property(fc.array(horizonObservationArb, { minLength: 1, maxLength: 8 }), (arrivals) => {
        let observations: Observation[] = [];
        const items: Items = new Map();
        for (const [i, a] of arrivals.entries()) {
          const current: Observation = { ...a, editionId: `e${i}` };
          const before = deriveSpans(observations);
          observations = withObservation(observations, current);
          const after = deriveSpans(observations);
          const oldAnswers = PROBES.map((d) => lookup(items, d));
          const newAnswers = PROBES.map((d) => spanOn(after, d)?.identity ?? null);

          for (const w of planWrites(before, after, current)) {
            if (w.kind === 'put') {
              if (w.copyFrom !== null) expect(items.get(w.copyFrom)?.identity).toBe(w.span.identity);
              items.set(w.span.from, { to: w.span.to, identity: w.span.identity });
            } else if (w.kind === 'setValidTo') {
              expect(items.has(w.from)).toBe(true);
              items.get(w.from)!.to = w.to;
            } else {
              items.delete(w.from);
            }
            for (const [k, d] of PROBES.entries()) expect([oldAnswers[k], newAnswers[k]]).toContain(lookup(items, d));
          }
          expect(items).toEqual(itemsOf(after));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('plans nothing when an edition is ingested twice', () => {
    fc.assert(
      fc.property(fc.array(horizonObservationArb, { minLength: 1, maxLength: 8 }), (arrivals) => {
        let observations: Observation[] = [];
        for (const [i, a] of arrivals.entries()) observations = withObservation(observations, { ...a, editionId: `e${i}` });
        const spans = deriveSpans(observations);
        const last = observations.at(-1)!;
        expect(planWrites(spans, deriveSpans(withObservation(observations, last)), last)).toEqual([]);
      }),
    );
  });

  it('derives the same versions whatever order the editions arrive in', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(horizonObservationArb, { selector: (o) => o.date, minLength: 1, maxLength: 6 })
          .chain((obs) => fc.tuple(fc.constant(obs), fc.shuffledSubarray(obs, { minLength: obs.length, maxLength: obs.length }))),
        ([inOrder, shuffled]) => {
          const build = (list: typeof inOrder) =>
            list.reduce<Observation[]>((acc, o) => withObservation(acc, { ...o, editionId: o.date }), []);
          expect(deriveSpans(build(shuffled))).toEqual(deriveSpans(build(inOrder)));
        },
      ),
    );
  });
});
