/**
 * A character trie over every reporter, law and journal abbreviation. Walking it from a position costs at most the
 * length of the longest abbreviation, so the extractor stays linear in its input however the text is built.
 *
 * A space in an abbreviation matches any run of white space in the text (citations wrap across lines), and after a
 * period a space is optional on either side: `N. Y. S. 2d` reads as `N.Y.S.2d`, `S.Ct.` as `S. Ct.` (reporters are
 * printed both ways; reporters-db lists only some of the spellings).
 */
import type { Abbreviation } from './reporters.ts';

/** Children are looked up by the walk through `only` or `ascii` (cheaper than the map), the map kept for the rest. */
interface Node {
  next: Map<number, Node> | undefined;
  /** The code of a node's one child, else -1. */
  only: number;
  onlyChild: Node | undefined;
  /** The ASCII children of a node with several, by code. */
  ascii: Array<Node | undefined> | undefined;
  value: Abbreviation | undefined;
}

function newNode(): Node {
  return { next: undefined, only: -1, onlyChild: undefined, ascii: undefined, value: undefined };
}

/** The child of `node` for `code`, if any. */
function child(node: Node, code: number): Node | undefined {
  if (node.ascii === undefined) return code === node.only ? node.onlyChild : undefined;
  return code < 128 ? node.ascii[code] : node.next?.get(code);
}

/**
 * Abbreviations found by one walk, as parallel arrays ordered by end (equal ends in the order found), reused from walk
 * to walk so the hot loop allocates nothing per attempt.
 */
export class TrieMatches {
  readonly ends: number[] = [];
  readonly abbreviations: Abbreviation[] = [];
  count = 0;

  /** Some abbreviation found ends at `end`. */
  endsAt(end: number): boolean {
    for (let k = 0; k < this.count; k++) if (this.ends[k] === end) return true;
    return false;
  }

  push(end: number, abbreviation: Abbreviation): void {
    let k = this.count++;
    for (; k > 0 && this.ends[k - 1]! > end; k--) {
      this.ends[k] = this.ends[k - 1]!;
      this.abbreviations[k] = this.abbreviations[k - 1]!;
    }
    this.ends[k] = end;
    this.abbreviations[k] = abbreviation;
  }
}

const SPACE = 0x20;
const PERIOD = 0x2e;

export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xa0 || code === 0x0c;
}

export class AbbreviationTrie {
  private readonly root: Node = newNode();

  constructor(abbreviations: Iterable<Abbreviation>) {
    for (const a of abbreviations) this.add(a);
    indexChildren(this.root);
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
        child = newNode();
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
   * Every abbreviation that starts at `from`, into `out` (cleared first), shortest first. The walk branches only after
   * a period (space or none), so its cost stays bounded by the longest abbreviation times the periods in it.
   */
  matchesAt(text: string, from: number, out: TrieMatches): void {
    out.count = 0;
    let node: Node | undefined = child(this.root, text.charCodeAt(from));
    if (node === undefined) return;
    if (node.value) out.push(from + 1, node.value);
    // The other side of each branch after a period waits here; walked after the main path, without recursion.
    let pending = 0;
    let i = from + 1;
    let period = text.charCodeAt(from) === PERIOD;
    const n = text.length;
    for (;;) {
      while (i < n && node?.next) {
        const code = text.charCodeAt(i);
        if (isSpace(code)) {
          let j = i + 1;
          while (j < n && isSpace(text.charCodeAt(j))) j++;
          // `N. Y.`: the abbreviation may have no space where the text has one after a period.
          if (period && j < n && child(node, text.charCodeAt(j))) {
            this.branchNodes[pending] = node;
            this.branchAt[pending++] = j;
          }
          node = child(node, SPACE);
          i = j;
          period = false;
        } else {
          // `S.Ct.`: the abbreviation may have a space where the text has none after a period.
          if (period) {
            const spaced = child(node, SPACE);
            if (spaced?.next && child(spaced, code)) {
              this.branchNodes[pending] = spaced;
              this.branchAt[pending++] = i;
            }
          }
          node = child(node, code);
          i++;
          period = code === PERIOD;
        }
        // One abbreviation per end: the main path's, spelled as the text prints it (`P.R.`, a variation of three
        // reporters), not one a branch after a period reaches (`P. R.`, a variation of one).
        if (node?.value && !out.endsAt(i)) out.push(i, node.value);
      }
      if (pending === 0) return;
      pending--;
      node = this.branchNodes[pending];
      i = this.branchAt[pending]!;
      period = false;
    }
  }

  private readonly branchNodes: Array<Node | undefined> = [];
  private readonly branchAt: number[] = [];
}

/** Gives a node with one child its `only`, every node with more its ASCII children as an array. */
function indexChildren(root: Node): void {
  const stack = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (!node.next) continue;
    if (node.next.size === 1) {
      const [code, next] = node.next.entries().next().value!;
      node.only = code;
      node.onlyChild = next;
    } else {
      node.ascii = new Array<Node | undefined>(128).fill(undefined);
      for (const [code, next] of node.next) if (code < 128) node.ascii[code] = next;
    }
    stack.push(...node.next.values());
  }
}
