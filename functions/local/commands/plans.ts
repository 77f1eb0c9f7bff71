/** `asof plans list`: the plans a key may be on and their three ceilings, read from the plan book (no store). */
import { PlanBook } from '#accounts/plans.ts';
import { type Command, count as n, UsageError } from './command.ts';
import { JSON_OUTPUT } from './flags.ts';

const OPTIONS = { ...JSON_OUTPUT } as const;

export const plansCommand: Command<typeof OPTIONS> = {
  name: 'plans',
  options: OPTIONS,
  usage: () => '  plans list [--json]        the plans and their ceilings',
  run([sub], flags, io) {
    if (sub !== undefined && sub !== 'list') throw new UsageError('plans takes list');
    const book = new PlanBook();
    if (flags.json) {
      io.out(JSON.stringify({ default: book.defaultPlan, plans: book.plans }, null, 2));
      return 0;
    }
    io.out(`${'plan'.padEnd(12)} ${'per minute'.padStart(10)} ${'units/day'.padStart(12)} ${'units/month'.padStart(12)}`);
    for (const p of book.plans) {
      io.out(
        `${`${p.id}${p.id === book.defaultPlan ? '*' : ''}`.padEnd(12)} ${n(p.perMinute).padStart(10)} ${n(p.daily).padStart(12)} ${n(p.monthly).padStart(12)}  ${p.name}`,
      );
    }
    io.out('* the plan of a key created without --plan; each key may override any of the three numbers');
    return 0;
  },
};
