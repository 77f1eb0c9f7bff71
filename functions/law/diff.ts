/**
 * The difference between two texts of a section: a word-level edit script and a unified (line) rendering, on jsdiff.
 *
 * Bounded work: the lines are diffed first (a long section has a few hundred lines at most), and only each passage of
 * lines replaced by others is diffed word by word, within an edit budget and a time budget. Myers' algorithm costs the
 * square of the edit distance, so two long, wholly different texts would hold the thread for seconds; over budget, a
 * passage is given as its lines removed and added, which is a true (if coarser) edit script, and `wordLevel` says so.
 * Before either diff runs, a lower bound of its edit distance (what the two sides' tokens differ by, counted as
 * multisets, in linear time) is checked against the budget: a passage that cannot be within it is given whole at once,
 * as the diff would give it after spending its budget, so the common costly case costs nothing and the answer does not
 * depend on how busy the machine is.
 */
import { createTwoFilesPatch, diffArrays, diffLines, FILE_HEADERS_ONLY } from 'diff';

export type DiffOperation = { op: 'keep' | 'remove' | 'add'; text: string };

export interface TextDiff {
  /** Applied in order: the `keep` and `remove` texts make the old text, the `keep` and `add` texts the new one. */
  operations: DiffOperation[];
  /** Unified diff of the lines (`diff -u`, three lines of context); empty when the texts are the same. */
  unified: string;
  /** False when some passage was too long or too different to diff word by word within the budget (see above). */
  wordLevel: boolean;
  /** Words (runs of letters and digits) kept, removed and added. */
  words: { kept: number; removed: number; added: number };
}

export interface DiffBudget {
  /** Most word edits a replaced passage is diffed for before it is given whole (jsdiff's maxEditLength). */
  wordEdits: number;
  /** Most line edits the line diff looks for before the whole text is given as replaced. */
  lineEdits: number;
  /** Time for all the word diffs of one call, in ms: past it, the remaining passages are given whole. */
  timeMs: number;
}

/** 400 word edits cost ~25 ms at worst on this machine (2026-11-24); the time budget caps a call whatever its passages. */
export const DIFF_BUDGET: DiffBudget = { wordEdits: 400, lineEdits: 4_000, timeMs: 60 };

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Tokens for the word diff: a word or a punctuation mark with the whitespace after it, and any leading whitespace on
 * its own, so that the tokens join back into the text exactly (jsdiff's diffWords does not: it drops or moves spaces
 * around changes, "it contains" coming out "itcontains"), and whitespace alone never matches as a common token.
 */
const TOKEN = /^\s+|[\p{L}\p{N}]+\s*|[^\s\p{L}\p{N}]\s*/gu;
export const wordTokens = (text: string): string[] => text.match(TOKEN) ?? [];
const countWords = (text: string): number => text.match(WORD)?.length ?? 0;

/** A text's lines as jsdiff's line diff reads them: each with its line break, the last one without when it has none. */
const lineTokens = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/**
 * A lower bound of the edit distance (insertions plus deletions, jsdiff's edit length) between two token sequences:
 * each token occurring more often on one side must be removed or added that many times, whatever the alignment.
 */
export function editLowerBound(from: readonly string[], to: readonly string[]): number {
  const surplus = new Map<string, number>();
  for (const t of from) surplus.set(t, (surplus.get(t) ?? 0) + 1);
  for (const t of to) surplus.set(t, (surplus.get(t) ?? 0) - 1);
  let bound = 0;
  for (const n of surplus.values()) bound += Math.abs(n);
  return bound;
}

/** True when no line diff of the two texts can be within the budget's line edits (both renderings skip it then). */
const linesOverBudget = (from: string, to: string, budget: DiffBudget): boolean =>
  editLowerBound(lineTokens(from), lineTokens(to)) > budget.lineEdits;

function pushOp(ops: DiffOperation[], op: DiffOperation['op'], text: string): void {
  if (text === '') return;
  const last = ops.at(-1);
  if (last?.op === op) last.text += text;
  else ops.push({ op, text });
}

/** Time spent running, not waiting: a paced diff's budget is the work it does, not how long others kept it waiting. */
class Stopwatch {
  private spent = 0;
  private since = performance.now();
  pause(): void {
    this.spent += performance.now() - this.since;
  }
  resume(): void {
    this.since = performance.now();
  }
  get ms(): number {
    return this.spent + performance.now() - this.since;
  }
}

/**
 * The edit script as steps: the line diff, then each replaced passage's word diff, the generator pausing between
 * them. Run at once (diffTexts) or paced (diffTextsPaced), the same steps give the same answer.
 */
function* diffSteps(from: string, to: string, budget: DiffBudget): Generator<void, Omit<TextDiff, 'unified'>> {
  const ops: DiffOperation[] = [];
  let wordLevel = true;
  if (from === to) {
    pushOp(ops, 'keep', from);
    return { operations: ops, wordLevel, words: tally(ops) };
  }
  const clock = new Stopwatch();
  const lines = linesOverBudget(from, to, budget)
    ? undefined
    : diffLines(from, to, { maxEditLength: budget.lineEdits, timeout: budget.timeMs });
  if (lines === undefined) {
    pushOp(ops, 'remove', from);
    pushOp(ops, 'add', to);
    return { operations: ops, wordLevel: false, words: tally(ops) };
  }
  for (let i = 0; i < lines.length; i++) {
    const change = lines[i]!;
    const next = lines[i + 1];
    if (change.removed && next?.added) {
      i++;
      clock.pause();
      yield;
      clock.resume();
      const left = budget.timeMs - clock.ms;
      const [older, newer] = [wordTokens(change.value), wordTokens(next.value)];
      const words =
        left > 0 && editLowerBound(older, newer) <= budget.wordEdits
          ? diffArrays(older, newer, { maxEditLength: budget.wordEdits, timeout: left })
          : undefined;
      if (words === undefined) {
        wordLevel = false;
        pushOp(ops, 'remove', change.value);
        pushOp(ops, 'add', next.value);
      } else {
        for (const w of words) pushOp(ops, w.added ? 'add' : w.removed ? 'remove' : 'keep', w.value.join(''));
      }
      continue;
    }
    pushOp(ops, change.added ? 'add' : change.removed ? 'remove' : 'keep', change.value);
  }
  return { operations: ops, wordLevel, words: tally(ops) };
}

/** The edit script of `from` → `to`, word by word wherever the budget allows, computed at once. */
export function diffTexts(from: string, to: string, budget: DiffBudget = DIFF_BUDGET): Omit<TextDiff, 'unified'> {
  const steps = diffSteps(from, to, budget);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The turn of the process's paced diffs: one runs at a time, the others wait their turn without holding anything. */
let turn: Promise<unknown> = Promise.resolve();
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * diffTexts for a server: the same answer, computed one step at a time with the event loop free between steps, and one
 * diff at a time in the process, so that however many diffs are asked at once, every other request waits at most
 * for one step of one of them (a step is bounded by the budget), not for all of them.
 */
export function diffTextsPaced(from: string, to: string, budget: DiffBudget = DIFF_BUDGET): Promise<Omit<TextDiff, 'unified'>> {
  const run = turn.then(async () => {
    await nextTick();
    const steps = diffSteps(from, to, budget);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      await nextTick();
    }
  });
  turn = run.catch(() => undefined);
  return run;
}

function tally(ops: readonly DiffOperation[]): TextDiff['words'] {
  const words = { kept: 0, removed: 0, added: 0 };
  for (const { op, text } of ops) {
    const n = countWords(text);
    if (op === 'keep') words.kept += n;
    else if (op === 'remove') words.removed += n;
    else words.added += n;
  }
  return words;
}

/** `diff -u` of the lines, labelled; the whole text as one replaced hunk when the line diff is over budget. */
export function unifiedDiff(from: string, to: string, labels: { from: string; to: string }, budget: DiffBudget = DIFF_BUDGET): string {
  if (from === to) return '';
  const patch = linesOverBudget(from, to, budget)
    ? undefined
    : createTwoFilesPatch(labels.from, labels.to, from, to, undefined, undefined, {
        context: 3,
        headerOptions: FILE_HEADERS_ONLY,
        maxEditLength: budget.lineEdits,
        timeout: budget.timeMs,
      });
  if (patch !== undefined) return patch;
  const fromLines = splitLines(from);
  const toLines = splitLines(to);
  return (
    `--- ${labels.from}\n+++ ${labels.to}\n@@ -1,${fromLines.length} +1,${toLines.length} @@\n` +
    [...fromLines.map((l) => `-${l}\n`), ...toLines.map((l) => `+${l}\n`)].join('')
  );
}

const splitLines = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** Both renderings of `from` → `to`. */
export function diffText(from: string, to: string, labels: { from: string; to: string }, budget: DiffBudget = DIFF_BUDGET): TextDiff {
  return { ...diffTexts(from, to, budget), unified: unifiedDiff(from, to, labels, budget) };
}

/** Both renderings, paced (diffTextsPaced): the unified rendering is one more step, after the edit script's. */
export async function diffTextPaced(
  from: string,
  to: string,
  labels: { from: string; to: string },
  budget: DiffBudget = DIFF_BUDGET,
): Promise<TextDiff> {
  const script = await diffTextsPaced(from, to, budget);
  await nextTick();
  return { ...script, unified: unifiedDiff(from, to, labels, budget) };
}
