/**
 * A character trie over every reporter, law and journal abbreviation. Walking it from a position costs at most the
 * length of the longest abbreviation, so the extractor stays linear in its input however the text is built.
 *
 * A space in an abbreviation matches any run of white space in the text (citations wrap across lines), and after a
 * period a space is optional on either side: `N. Y. S. 2d` reads as `N.Y.S.2d`, `S.Ct.` as `S. Ct.` (reporters are
 * printed both ways; reporters-db lists only some of the spellings).
 */
import type { Abbreviation } from './reporters.ts';

interface Node {
  next: Map<number, Node> | undefined;
  value: Abbreviation | undefined;
}

const SPACE = 0x20;
const PERIOD = 0x2e;

export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xa0 || code === 0x0c;
}

export class AbbreviationTrie {
  private readonly root: Node = { next: undefined, value: undefined };

  constructor(abbreviations: Iterable<Abbreviation>) {
    for (const a of abbreviations) this.add(a);
    for (const [first, node] of this.root.next ?? []) {
      for (const second of node.next?.keys() ?? []) {
        if (first < 128 && second < 128) this.pairs[first * 128 + second] = 1;
      }
      // A one-character abbreviation, or one whose second character the text may print as any space.
      if (first < 128 && node.value) for (let c = 0; c < 128; c++) this.pairs[first * 128 + c] = 1;
      if (first < 128 && node.next?.has(SPACE)) for (const c of [0x09, 0x0a, 0x0c, 0x0d]) this.pairs[first * 128 + c] = 1;
    }
  }

  private add(abbreviation: Abbreviation): void {
    const text = abbreviation.text.replace(/\s+/g, ' ').trim();
    if (text.length === 0) return;
    let node = this.root;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      node.next ??= new Map();
      let child = node.next.get(code);
      if (!child) {
        child = { next: undefined, value: undefined };
        node.next.set(code, child);
      }
      node = child;
    }
    node.value ??= abbreviation;
  }

  /** ASCII pairs some abbreviation starts with, as a bitmap (128 × 128): the cheap test before a walk. */
  private readonly pairs = new Uint8Array(128 * 128);

  /** Some abbreviation may start at `i`: its first two characters begin one (exactly, for ASCII). */
  mayStartAt(text: string, i: number): boolean {
    const first = text.charCodeAt(i);
    const second = text.charCodeAt(i + 1);
    if (first < 128 && second < 128) return this.pairs[first * 128 + second] === 1;
    return this.root.next?.get(first)?.next?.has(isSpace(second) ? SPACE : second) ?? false;
  }

  /**
   * Every abbreviation that starts at `from`, as [end, abbreviation] pairs, longest last. `out` is reused by the
   * caller so the hot loop allocates nothing per attempt. The walk branches only after a period (space or none), so
   * its cost stays bounded by the longest abbreviation times the periods in it.
   */
  matchesAt(text: string, from: number, out: Array<[number, Abbreviation]>): Array<[number, Abbreviation]> {
    if (out.length > 0) out.length = 0;
    if (!this.root.next?.has(text.charCodeAt(from))) return out;
    // The other side of each branch after a period waits here; walked after the main path, without recursion.
    let pending = 0;
    let node: Node | undefined = this.root;
    let i = from;
    let period = false;
    let sorted = true;
    for (;;) {
      while (i < text.length && node?.next) {
        const code = text.charCodeAt(i);
        if (isSpace(code)) {
          let j = i + 1;
          while (j < text.length && isSpace(text.charCodeAt(j))) j++;
          // `N. Y.`: the abbreviation may have no space where the text has one after a period.
          if (period && j < text.length && node.next.has(text.charCodeAt(j))) {
            this.branchNodes[pending] = node;
            this.branchAt[pending++] = j;
          }
          node = node.next.get(SPACE);
          i = j;
          period = false;
        } else {
          // `S.Ct.`: the abbreviation may have a space where the text has none after a period.
          if (period) {
            const spaced = node.next.get(SPACE);
            if (spaced?.next?.has(code)) {
              this.branchNodes[pending] = spaced;
              this.branchAt[pending++] = i;
            }
          }
          node = node.next.get(code);
          i++;
          period = code === PERIOD;
        }
        if (node?.value) {
          if (out.length > 0 && out[out.length - 1]![0] > i) sorted = false;
          out.push([i, node.value]);
        }
      }
      if (pending === 0) break;
      pending--;
      node = this.branchNodes[pending];
      i = this.branchAt[pending]!;
      period = false;
    }
    if (!sorted) out.sort((x, y) => x[0] - y[0]);
    return out;
  }

  private readonly branchNodes: Array<Node | undefined> = [];
  private readonly branchAt: number[] = [];
}
