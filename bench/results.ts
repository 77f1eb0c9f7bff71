/**
 * The shape of bench/results.json: one entry per scenario, each with what was run, its settings, when, on which
 * machine and commit, and its figures. A figure carries the target it was judged against (copied from
 * bench/targets.ts at run time), so bench/render-table.ts computes met or missed from the file alone.
 */
import type { Machine } from './machine.ts';

export type Unit = 'req/s' | 'ms' | 's' | 'versions/s' | 'MiB' | 'KiB' | 'MB/s' | '×' | 'share' | 'count';

/** A bound on a figure's value, or on its ratio to its baseline (value ÷ baseline). */
export interface Target {
  of: 'value' | 'ratio';
  op: '>=' | '<=';
  bound: number;
  /** Where the target comes from, e.g. "issue 30". */
  source: string;
}

export interface Figure {
  label: string;
  /** null: not measured in this run (the reason is in `note`). */
  value: number | null;
  unit: Unit;
  /** What the value is compared with, measured in the same run. */
  baseline?: { label: string; value: number };
  target?: Target;
  note?: string;
}

export interface ScenarioResult {
  id: string;
  /** What was run, in a line. */
  what: string;
  command: string;
  mode: 'quick' | 'full';
  /** ISO time the scenario finished. */
  date: string;
  wallMs: number;
  /** The machine's 1-minute load average when the scenario started: on a shared machine, how busy it was. */
  loadAverage?: number;
  machine: Machine;
  settings: Record<string, unknown>;
  figures: Figure[];
  /** Set when the scenario failed part way: its figures are what was measured before. */
  error?: string;
}

export interface BenchResults {
  format: 2;
  scenarios: ScenarioResult[];
}

export const emptyResults = (): BenchResults => ({ format: 2, scenarios: [] });

/** `next` replaces the entry of the same id; entries stay in `order` (ids not in it go last, in their order). */
export function mergeScenario(results: BenchResults, next: ScenarioResult, order: readonly string[]): BenchResults {
  const scenarios = [...results.scenarios.filter((s) => s.id !== next.id), next];
  const rank = (id: string) => {
    const i = order.indexOf(id);
    return i < 0 ? order.length : i;
  };
  return {
    format: 2,
    scenarios: scenarios
      .map((s, i) => ({ s, i }))
      .sort((a, b) => rank(a.s.id) - rank(b.s.id) || a.i - b.i)
      .map(({ s }) => s),
  };
}

/** A results.json of an older format holds no scenarios this bench can merge into: start afresh. */
export function parseResults(text: string): BenchResults {
  const parsed = JSON.parse(text) as Partial<BenchResults>;
  return parsed.format === 2 && Array.isArray(parsed.scenarios) ? (parsed as BenchResults) : emptyResults();
}
