/**
 * A character trie over every reporter, law and journal abbreviation. Walking it from a position costs at most the
 * length of the longest abbreviation, so the extractor stays linear in its input however the text is built.
 *
 * A space in an abbreviation matches any run of white space in the text (citations wrap across lines).
 */
import type { Abbreviation } from './reporters.ts';

interface Node {
  next: Map<number, Node> | undefined;
  value: Abbreviation | undefined;
}

const SPACE = 0x20;

export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xa0 || code === 0x0c;
}

export class AbbreviationTrie {
  private readonly root: Node = { next: undefined, value: undefined };

  constructor(abbreviations: Iterable<Abbreviation>) {
    for (const a of abbreviations) this.add(a);
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

  /**
   * Every abbreviation that starts at `from`, as [end, abbreviation] pairs, longest last. `out` is reused by the
   * caller so the hot loop allocates nothing per attempt.
   */
  matchesAt(text: string, from: number, out: Array<[number, Abbreviation]>): Array<[number, Abbreviation]> {
    out.length = 0;
    let node: Node | undefined = this.root;
    let i = from;
    while (i < text.length && node?.next) {
      const code = text.charCodeAt(i);
      if (isSpace(code)) {
        node = node.next.get(SPACE);
        while (i < text.length && isSpace(text.charCodeAt(i))) i++;
      } else {
        node = node.next.get(code);
        i++;
      }
      if (node?.value) out.push([i, node.value]);
    }
    return out;
  }
}
