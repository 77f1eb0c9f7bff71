import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SampleDocument } from './sample-corpus.ts';

/**
 * A synthetic US Code title in USLM XML, for the scale benchmark. Nothing is written by hand: every heading is a
 * real catchline of the bundled sample and every sentence a real sentence of its sections, drawn with a seeded PRNG,
 * so the search index sees realistic term statistics. The structure is the one OLRC's files have (uscDoc/meta,
 * title/chapter/section with identifier, num, heading, subsections with content), under a title number no real data
 * uses.
 *
 * Editions: edition 1 holds every section; each later edition replaces the content of one subsection of every
 * section (an amendment), so every section ends with exactly one version per edition.
 */

export const SYNTHETIC_TITLE = '99';
export const SECTIONS_PER_CHAPTER = 500;

export interface SyntheticEdition {
  file: string;
  /** YYYY-MM-DD: `<dcterms:created>` and so the edition's validFrom. */
  date: string;
  label: string;
  bytes: number;
}

export interface TextPool {
  sentences: string[];
  catchlines: string[];
}

/** mulberry32: a small, fast, seedable PRNG (deterministic across runs and machines). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedOf = (section: number, salt: number): number => (Math.imul(section + 1, 0x9e3779b1) ^ Math.imul(salt + 7, 0x85ebca6b)) >>> 0;

/** Sentences and headings of the real sample sections, deduplicated, enumerators ("(a)", "(1)(A)") stripped. */
export function textPool(docs: readonly SampleDocument[]): TextPool {
  const sentences = new Set<string>();
  for (const doc of docs) {
    for (const line of doc.bodyText.split('\n')) {
      const text = line.replace(/^\s*(\([0-9A-Za-z]{1,6}\)\s*)+/, '').trim();
      for (const s of text.split(/(?<=[.;])\s+(?=[A-Z(“"])/)) {
        const sentence = s.trim();
        if (sentence.length >= 30 && sentence.length <= 700) sentences.add(sentence);
      }
    }
  }
  const catchlines = new Set(docs.map((d) => d.catchline.trim()).filter((c) => c.length > 3));
  return { sentences: [...sentences].sort(), catchlines: [...catchlines].sort() };
}

const escapeXml = (s: string): string => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

interface SectionText {
  heading: string;
  /** Each subsection's sentences (indexes into the pool). */
  subsections: number[][];
}

/** A section's text as edition `edition` (1-based) shows it. Pure function of (section, edition). */
export function sectionText(pool: TextPool, section: number, edition: number): SectionText {
  const rnd = prng(seedOf(section, 0));
  const pick = (r: () => number) => Math.floor(r() * pool.sentences.length);
  const heading = pool.catchlines[Math.floor(rnd() * pool.catchlines.length)]!;
  // 1-6 subsections (mean 3.4) of 1-3 sentences (mean 1.8): about 0.9 KB of text per section, a little more than
  // the sample's US Code sections (0.7 KB on average).
  const u = rnd();
  const count = u < 0.1 ? 1 : u < 0.3 ? 2 : u < 0.6 ? 3 : u < 0.8 ? 4 : u < 0.92 ? 5 : 6;
  const sentenceCount = (r: () => number) => {
    const v = r();
    return v < 0.4 ? 1 : v < 0.8 ? 2 : 3;
  };
  const subsections: number[][] = [];
  for (let i = 0; i < count; i++) subsections.push(Array.from({ length: sentenceCount(rnd) }, () => pick(rnd)));
  for (let e = 2; e <= edition; e++) {
    const r = prng(seedOf(section, e));
    const which = Math.floor(r() * subsections.length);
    let next: number[];
    do next = Array.from({ length: sentenceCount(r) }, () => pick(r));
    while (next.join() === subsections[which]!.join());
    subsections[which] = next;
  }
  return { heading, subsections };
}

function sectionXml(pool: TextPool, section: number, edition: number): string {
  const { heading, subsections } = sectionText(pool, section, edition);
  const id = `/us/usc/t${SYNTHETIC_TITLE}/s${section}`;
  let xml = `<section identifier="${id}"><num value="${section}">§ ${section}.</num><heading> ${escapeXml(heading)}</heading>`;
  subsections.forEach((sentences, i) => {
    const letter = LETTERS[i]!;
    const content = sentences.map((s) => escapeXml(pool.sentences[s]!)).join(' ');
    xml += `<subsection identifier="${id}/${letter}"><num value="${letter}">(${letter})</num><content> ${content}</content>\n</subsection>\n`;
  });
  return `${xml}</section>\n`;
}

/** Writes one edition to `file`, streaming (a chunk of sections at a time, honouring backpressure). */
async function writeEdition(pool: TextPool, file: string, sections: number, edition: number, date: string): Promise<SyntheticEdition> {
  const label = `Bench@${edition}`;
  const out = createWriteStream(file, { encoding: 'utf8' });
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write(
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
      `<uscDoc xml:lang="en" identifier="/us/usc/t${SYNTHETIC_TITLE}" xmlns="http://xml.house.gov/schemas/uslm/1.0" ` +
      `xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">\n` +
      `<meta>\n  <dc:title>Title ${SYNTHETIC_TITLE}</dc:title>\n  <dc:type>USCTitle</dc:type>\n  <docNumber>${SYNTHETIC_TITLE}</docNumber>\n` +
      `  <docPublicationName>${label}</docPublicationName>\n  <dc:publisher>asof bench (synthetic)</dc:publisher>\n` +
      `  <dcterms:created>${date}T00:00:00</dcterms:created>\n</meta>\n<main>\n` +
      `<title identifier="/us/usc/t${SYNTHETIC_TITLE}"><num value="${SYNTHETIC_TITLE}">Title ${SYNTHETIC_TITLE}—</num><heading>SYNTHETIC BENCHMARK TITLE</heading>\n`,
  );
  let chunk = '';
  for (let s = 1; s <= sections; s++) {
    if (s % SECTIONS_PER_CHAPTER === 1) {
      if (s > 1) chunk += '</chapter>\n';
      const ch = Math.ceil(s / SECTIONS_PER_CHAPTER);
      chunk += `<chapter identifier="/us/usc/t${SYNTHETIC_TITLE}/ch${ch}"><num value="${ch}">CHAPTER ${ch}—</num><heading>CHAPTER ${ch}</heading>\n`;
    }
    chunk += sectionXml(pool, s, edition);
    if (chunk.length > 256 * 1024) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(`${chunk}</chapter>\n</title>\n</main>\n</uscDoc>\n`);
  out.end();
  await once(out, 'finish');
  return { file, date, label, bytes: (await stat(file)).size };
}

export const EDITION_DATES = ['2015-01-01', '2019-01-01', '2023-01-01'] as const;

/** One edition of a synthetic title of `sections` sections, at `file`. */
export const writeSyntheticEdition = (pool: TextPool, file: string, sections: number): Promise<SyntheticEdition> =>
  writeEdition(pool, file, sections, 1, EDITION_DATES[0]);

/** The three editions of the synthetic title in `dir`. */
export async function writeSyntheticTitle(pool: TextPool, dir: string, sections: number): Promise<SyntheticEdition[]> {
  const out: SyntheticEdition[] = [];
  for (const [i, date] of EDITION_DATES.entries()) {
    out.push(await writeEdition(pool, join(dir, `usc${SYNTHETIC_TITLE}@bench-${i + 1}.xml`), sections, i + 1, date));
  }
  return out;
}
