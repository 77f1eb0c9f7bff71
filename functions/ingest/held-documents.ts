import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SourceDocument } from './source.ts';

/**
 * The checked documents of one edition, held from the check pass to the writes (engine.ts): in memory while their
 * texts stay under a budget of characters (every real US Code title does), the rest in a temporary file of JSON
 * lines. The source is then read and parsed once, whatever the edition's size (re-reading a 100,000-section title, or
 * the D.C. Code's first publication out of git, cost as much again as the first reading), and memory stays bounded.
 * JSON keeps every string as it was (lone surrogates included), so the documents read back are the ones checked.
 */
export class HeldDocuments implements AsyncIterable<SourceDocument> {
  private readonly memory: SourceDocument[] = [];
  private chars = 0;
  private spill: { dir: string; file: string; fd: number } | null = null;
  /** Lines not yet written to the spill file. */
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(private readonly budgetChars: number) {}

  add(doc: SourceDocument): void {
    if (!this.spill) {
      this.chars += doc.bodyText.length + doc.historyNote.length + doc.catchline.length;
      if (this.chars <= this.budgetChars) {
        this.memory.push(doc);
        return;
      }
      const dir = mkdtempSync(join(tmpdir(), 'asof-edition-'));
      const file = join(dir, 'documents.jsonl');
      this.spill = { dir, file, fd: openSync(file, 'w', 0o600) };
    }
    const line = `${JSON.stringify(doc)}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  /** Whether part of the documents is in the temporary file. */
  get spilled(): boolean {
    return this.spill !== null;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SourceDocument> {
    yield* this.memory;
    if (!this.spill) return;
    this.flush();
    let rest = '';
    for await (const chunk of createReadStream(this.spill.file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const lines = (rest + (chunk as string)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) yield JSON.parse(line) as SourceDocument;
    }
    if (rest) yield JSON.parse(rest) as SourceDocument;
  }

  /** Removes the temporary file (a no-op when nothing was spilled, or once disposed). */
  dispose(): void {
    const spill = this.spill;
    if (!spill) return;
    this.spill = null;
    this.pending = [];
    try {
      closeSync(spill.fd);
    } finally {
      rmSync(spill.dir, { recursive: true, force: true });
    }
  }

  private flush(): void {
    if (!this.spill || this.pending.length === 0) return;
    writeSync(this.spill.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }
}

/** Characters of JSON lines gathered before one write to the spill file. */
const FLUSH_CHARS = 4 * 2 ** 20;
