import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EDGE_LIMIT_PER_MINUTE, EdgeLimiter } from '#accounts/edge-limit.ts';
import { secondsInMonth, secondsToNextMinute, windowsAt } from '#accounts/windows.ts';

const t = (iso: string) => new Date(iso);

describe('EdgeLimiter', () => {
  it('allows 120 requests a minute per token, refuses the 121st, and starts again next minute', () => {
    const edge = new EdgeLimiter();
    const verdicts = Array.from({ length: EDGE_LIMIT_PER_MINUTE + 1 }, (_, i) =>
      edge.hit('tok', t(`2026-11-22T12:00:${String(i % 60).padStart(2, '0')}Z`)),
    );

    expect(verdicts.slice(0, EDGE_LIMIT_PER_MINUTE).every((v) => v.allowed)).toBe(true);
    expect(verdicts.at(-1)).toEqual({ allowed: false, count: EDGE_LIMIT_PER_MINUTE + 1 });
    expect(edge.hit('other', t('2026-11-22T12:00:59Z')).allowed).toBe(true); // tokens are counted apart
    expect(edge.hit('tok', t('2026-11-22T12:01:00Z'))).toEqual({ allowed: true, count: 1 });
  });

  it('stops tracking new tokens past its bound, so a flood of distinct tokens cannot grow it', () => {
    const edge = new EdgeLimiter(2, 3);
    const now = t('2026-11-22T12:00:00Z');
    for (const tok of ['a', 'b', 'c']) edge.hit(tok, now);

    const untracked = [edge.hit('d', now), edge.hit('d', now), edge.hit('d', now)];

    expect(untracked.every((v) => v.allowed)).toBe(true);
    edge.hit('a', now);
    expect(edge.hit('a', now).allowed).toBe(false); // tracked tokens are still limited
  });

  it('never allows more than the limit to one token in one minute, whatever the order (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ token: fc.constantFrom('a', 'b', 'c'), ms: fc.integer({ min: 0, max: 179_999 }) }), { maxLength: 400 }),
        (hits) => {
          const edge = new EdgeLimiter(5);
          const allowed = new Map<string, number>();
          for (const h of [...hits].sort((x, y) => x.ms - y.ms)) {
            const v = edge.hit(h.token, new Date(Date.UTC(2026, 10, 22, 12) + h.ms));
            if (v.allowed) {
              const k = `${h.token}@${Math.floor(h.ms / 60_000)}`;
              allowed.set(k, (allowed.get(k) ?? 0) + 1);
            }
          }
          for (const n of allowed.values()) expect(n).toBeLessThanOrEqual(5);
        },
      ),
    );
  });
});

describe('meter windows', () => {
  it('names the UTC minute, day and month of a moment', () => {
    expect(windowsAt(t('2026-12-31T23:59:59.999Z'))).toEqual({ month: '2026-12', day: '31', minute: '2026-12-31T23:59' });
  });

  it('counts seconds to the next minute (1 to 60) and the length of the month', () => {
    expect(secondsToNextMinute(t('2026-11-22T12:00:00.000Z'))).toBe(60);
    expect(secondsToNextMinute(t('2026-11-22T12:00:59.001Z'))).toBe(1);
    expect(secondsInMonth(t('2026-02-10T00:00:00Z'))).toBe(28 * 86_400);
    expect(secondsInMonth(t('2028-02-10T00:00:00Z'))).toBe(29 * 86_400);
  });
});
