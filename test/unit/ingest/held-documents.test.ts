import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HeldDocuments } from '#ingest/held-documents.ts';
import type { SourceDocument } from '#ingest/source.ts';

const doc = (n: number, extra: Partial<SourceDocument> = {}): SourceDocument => ({
  key: `1-${n}`,
  catchline: `Section ${n}`,
  bodyText: `Body of section ${n}.\n\n(a) A line "quoted" and a tab\tand a backslash \\.`,
  historyNote: `(Pub. L. ${n})`,
  status: 'active',
  parts: { chapter: String(n % 7) },
  ...extra,
});

async function all(held: HeldDocuments): Promise<SourceDocument[]> {
  const out: SourceDocument[] = [];
  for await (const d of held) out.push(d);
  return out;
}

/** The spill file's folder, found through the instance (the test checks it is removed). */
const spillDir = (held: HeldDocuments): string => dirname((held as unknown as { spill: { file: string } }).spill.file);

describe('HeldDocuments', () => {
  it('holds documents under the budget in memory and gives them back in order', async () => {
    const held = new HeldDocuments(1_000_000);
    const docs = [doc(1), doc(2), doc(3)];
    for (const d of docs) held.add(d);
    expect(held.spilled).toBe(false);
    expect(await all(held)).toEqual(docs);
    held.dispose();
  });

  it('spills past the budget to a file and reads back exactly what was added, in order, as often as asked', async () => {
    const held = new HeldDocuments(200);
    const docs = Array.from({ length: 2_000 }, (_, i) =>
      doc(i, {
        // Strings JSON must carry unchanged: a lone surrogate, line and paragraph separators, a note or none.
        ...(i % 3 === 0 && { catchline: `Odd \ud800 text\u2028and\u2029more ${i}` }),
        ...(i % 5 === 0 && { note: null }),
        ...(i % 5 === 1 && { note: `Expires ${i}` }),
      }),
    );
    for (const d of docs) held.add(d);
    expect(held.spilled).toBe(true);
    const dir = spillDir(held);
    expect(existsSync(dir)).toBe(true);
    const first = await all(held);
    expect(first).toEqual(docs);
    expect(first[3]!.catchline).toBe(docs[3]!.catchline);
    expect(await all(held)).toEqual(docs);
    held.dispose();
    expect(existsSync(dir)).toBe(false);
    held.dispose();
  });
});
