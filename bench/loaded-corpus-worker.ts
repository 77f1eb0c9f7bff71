/**
 * Child process of the loaded-corpus benchmark (bench/loaded.ts): reads every stored version of a data dir once, with
 * no server on it, and prints one `RESULT {json}` line: the corpus's size by jurisdiction, and the request pools drawn
 * from what it holds (lookups of real keys at dates inside their versions, search words of its own text).
 *
 *   node --import tsx bench/loaded-corpus-worker.ts '{"dataDir": "..."}'
 */
import { refId, type SectionVersion } from '#law/model.ts';
import { openLocalStores } from '#local/local-runtime.ts';
import { WordFrequencies } from './corpus-words.ts';
import { prng } from './synthetic-uslm.ts';
import { lookupPath } from './targets.ts';

export interface CorpusSize {
  sections: number;
  versions: number;
  /** UTF-8 bytes of the versions' catchlines and texts. */
  textBytes: number;
}

export interface LoadedCorpus {
  byJurisdiction: Record<string, CorpusSize>;
  /** Lookup paths: each jurisdiction's share of real keys at dates inside their versions, then the 404s. */
  lookups: string[];
  lookupsByJurisdiction: Record<string, number>;
  notFound: number;
  broad: string[];
  narrow: string[];
}

const LOOKUPS_PER_JURISDICTION = 250;
const DAY = 86_400_000;

/** A date inside the version: 30 days after it starts, or half-way through a shorter one. */
function dateInside(v: SectionVersion): string {
  const from = Date.parse(v.validFrom);
  const to = v.validTo.startsWith('9999') ? Number.POSITIVE_INFINITY : Date.parse(v.validTo);
  const days = Math.min(30, Math.floor((to - from) / DAY / 2));
  return new Date(Date.parse(v.validFrom.slice(0, 10)) + days * DAY).toISOString().slice(0, 10);
}

const input = JSON.parse(process.argv[2] ?? '{}') as { dataDir: string };
const stores = await openLocalStores({ dataDir: input.dataDir, cache: false });
try {
  const rnd = prng(17);
  const sizes = new Map<string, CorpusSize & { keys: Set<string> }>();
  // One reservoir of versions a jurisdiction, so each is drawn from uniformly whatever its size.
  const reservoirs = new Map<string, { seen: number; picked: SectionVersion[] }>();
  const words = new WordFrequencies();
  for await (const v of stores.versions.scanVersions()) {
    const j = v.citation.jurisdiction;
    const size = sizes.get(j) ?? { sections: 0, versions: 0, textBytes: 0, keys: new Set<string>() };
    sizes.set(j, size);
    size.keys.add(refId(v.citation));
    size.versions++;
    size.textBytes += Buffer.byteLength(v.catchline) + Buffer.byteLength(v.bodyText);
    words.add(refId(v.citation), `${v.catchline} ${v.bodyText}`);
    const r = reservoirs.get(j) ?? { seen: 0, picked: [] };
    reservoirs.set(j, r);
    r.seen++;
    if (r.picked.length < LOOKUPS_PER_JURISDICTION) r.picked.push(v);
    else {
      const at = Math.floor(rnd() * r.seen);
      if (at < LOOKUPS_PER_JURISDICTION) r.picked[at] = v;
    }
  }
  const lookups: string[] = [];
  const lookupsByJurisdiction: Record<string, number> = {};
  for (const [j, r] of [...reservoirs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    lookups.push(...r.picked.map((v, i) => lookupPath(j, i % 2 ? v.citation.display : v.citation.key, dateInside(v))));
    lookupsByJurisdiction[j] = r.picked.length;
  }
  // About 3 % 404s, of both kinds: a key no jurisdiction has, and a real key on a date before its first version.
  const real = [...reservoirs.values()].flatMap((r) => r.picked);
  const notFound = Math.ceil(lookups.length * 0.03);
  for (let i = 0; i < notFound; i++) {
    const v = real[Math.floor(rnd() * real.length)]!;
    lookups.push(lookupPath(v.citation.jurisdiction, i % 2 ? `${v.citation.key}99999` : v.citation.key, '1900-01-01'));
  }
  const byJurisdiction = Object.fromEntries(
    [...sizes].map(([j, s]) => [j, { sections: s.keys.size, versions: s.versions, textBytes: s.textBytes }]),
  );
  const out: LoadedCorpus = { byJurisdiction, lookups, lookupsByJurisdiction, notFound, ...words.queries(rnd) };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
} finally {
  await stores.close();
}
