import { describe, expect, it } from 'vitest';
import { checkPlan } from '#accounts/issue-key.ts';
import { PlanBook } from '#accounts/plans.ts';
import planFile from '../../../functions/accounts/plans.json' with { type: 'json' };

const key = (plan: string, limits = {}) => ({ plan, limits });

describe('PlanBook', () => {
  it('reads the bundled plans, with a default plan among them', () => {
    const book = new PlanBook();
    expect(book.plans.map((p) => p.id)).toEqual(planFile.plans.map((p) => p.id));
    expect(book.get(book.defaultPlan)).toBeDefined();
  });

  it("gives a key its plan's ceilings, each replaced by the key's own override", () => {
    const book = new PlanBook({ default: 'free', plans: [{ id: 'free', name: 'Free', perMinute: 30, daily: 1000, monthly: 10000 }] });

    expect(book.ceilingsOf(key('free'))).toEqual({ perMinute: 30, daily: 1000, monthly: 10000 });
    expect(book.ceilingsOf(key('free', { daily: 5 }))).toEqual({ perMinute: 30, daily: 5, monthly: 10000 });
    expect(book.ceilingsOf(key('free', { perMinute: 2, daily: 3, monthly: 4 }))).toEqual({ perMinute: 2, daily: 3, monthly: 4 });
  });

  it("keeps a key whose plan was removed on the default plan's numbers, never unlimited", () => {
    const book = new PlanBook({ default: 'free', plans: [{ id: 'free', name: 'Free', perMinute: 30, daily: 1000, monthly: 10000 }] });
    expect(book.ceilingsOf(key('gone'))).toEqual({ perMinute: 30, daily: 1000, monthly: 10000 });
  });

  it('names the known plans when asked for an unknown one', () => {
    expect(() => new PlanBook().require('platinum')).toThrow(/unknown plan 'platinum' \(known: free, starter, pro, enterprise\)/);
  });

  it('refuses plan data that is not well formed, saying where', () => {
    expect(() => new PlanBook({ default: 'x', plans: [] })).toThrow(/plans/);
    expect(() => new PlanBook({ default: 'a', plans: [{ id: 'a', name: 'A', perMinute: 0, daily: 1, monthly: 1 }] })).toThrow(
      /plans\.0\.perMinute/,
    );
    expect(() => new PlanBook({ default: 'b', plans: [{ id: 'a', name: 'A', perMinute: 1, daily: 1, monthly: 1 }] })).toThrow(
      /default plan/,
    );
    const twice = { id: 'a', name: 'A', perMinute: 1, daily: 1, monthly: 1 };
    expect(() => new PlanBook({ default: 'a', plans: [twice, twice] })).toThrow(/unique/);
  });

  it('refuses a per-minute ceiling above the edge limit of 120, which could never be reached', () => {
    expect(() => new PlanBook({ default: 'a', plans: [{ id: 'a', name: 'A', perMinute: 121, daily: 1, monthly: 1 }] })).toThrow(
      /plans\.0\.perMinute: .*edge limit \(120\)/,
    );
    expect(() => checkPlan(new PlanBook(), 'pro', { perMinute: 500 })).toThrow(/perMinute: .*edge limit/);
  });
});

describe('checkPlan (issuing a key)', () => {
  const book = new PlanBook();

  it('gives a key the default plan unless it names one, and keeps its overrides', () => {
    expect(checkPlan(book, undefined, undefined)).toEqual({ plan: 'free', limits: {} });
    expect(checkPlan(book, 'pro', { daily: 50 })).toEqual({ plan: 'pro', limits: { daily: 50 } });
  });

  it('refuses an unknown plan, naming the known ones, and overrides that are not whole numbers above zero', () => {
    expect(() => checkPlan(book, 'platinum', {})).toThrow(/unknown plan 'platinum' \(known: free, starter, pro, enterprise\)/);
    expect(() => checkPlan(book, 'free', { daily: 0 })).toThrow(/daily/);
    expect(() => checkPlan(book, 'free', { monthly: 2.5 })).toThrow(/monthly/);
    expect(() => checkPlan(book, 'free', { hourly: 5 } as never)).toThrow(/hourly|Unrecognized/);
  });
});
