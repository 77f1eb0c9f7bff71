import { localDateOf } from '#shared/dates.ts';
import { AppError } from '#shared/errors.ts';
import { type Collection, collectionsOf, describeTitle } from './collections.ts';
import type { Corpus, SectionRef, SectionVersion, VersionSummary } from './model.ts';
import { applyPinpoint, type PinpointAnswer } from './pinpoint.ts';
import type { NearbyKey, VersionStore } from './ports.ts';
import { resolveCitation } from './resolve-citation.ts';

export interface LookupParams {
  jurisdiction: string;
  citation: string;
  /** YYYY-MM-DD, already validated; the caller supplies today's UTC date when the client gave none. */
  asOf: string;
  corpus?: Corpus;
  /**
   * The address of the coverage endpoint, which a miss in something not carried points at (the HTTP layer gives the
   * full URL of this deployment); `/law/coverage` when not given.
   */
  coverageUrl?: string;
}

export type SuggestionReason = 'earliest-version' | 'latest-version' | 'next-version' | 'similar-key';

export interface Suggestion {
  citation: string;
  display: string;
  validFrom: string;
  validTo: string;
  versionLabel: string;
  reason: SuggestionReason;
}

const MAX_SUGGESTIONS = 5;

export interface LookupAnswer {
  version: SectionVersion;
  /** What was done with the citation's pinpoint (`(a)(7)` of `Fed. R. App. P. 32(a)(7)`); null when it had none. */
  pinpoint: PinpointAnswer | null;
}

/** The version in force on `asOf`, or a 404 that says why (never the nearest version instead). */
export async function lookupVersion(store: VersionStore, params: LookupParams): Promise<LookupAnswer> {
  const section = await resolveSection(store, params);
  const found = await store.findInForce(section.ref, params.asOf);
  if (found) {
    return {
      version: found,
      pinpoint: section.pinpoint === null ? null : applyPinpoint(found.bodyText, section.pinpoint, found.citation.display),
    };
  }
  throw await notInForceError(store, section, await store.listVersions(section.ref), params.asOf, params.coverageUrl);
}

/** A citation read as one key of one carried collection: what lookup, versions and diff address. */
export interface ResolvedSection {
  ref: SectionRef;
  collection: Collection;
  /** What a printed form gave after the number (`(a)(7)`), or null. */
  pinpoint: string | null;
}

export type ResolveParams = Pick<LookupParams, 'jurisdiction' | 'citation' | 'corpus' | 'coverageUrl'>;

/**
 * The key a citation names, or the lookup's 404: `not_carried` when nothing of the corpus is held for the
 * jurisdiction, `no_edition_on_file` when the citation is no key or printed form of it (or one of another jurisdiction).
 */
export async function resolveSection(store: VersionStore, params: ResolveParams): Promise<ResolvedSection> {
  const { jurisdiction, citation, corpus } = params;
  const coverageUrl = params.coverageUrl ?? '/law/coverage';
  const resolved = resolveCitation(jurisdiction, citation, corpus);
  if (resolved.kind !== 'key') {
    await assertCarried(store, jurisdiction, corpus, coverageUrl);
    const hint =
      resolved.kind === 'foreign'
        ? ` '${citation}' is a citation of jurisdiction '${resolved.collection.jurisdiction}' (${resolved.collection.name}), not '${jurisdiction}'.`
        : ` It is not a key or citation form of ${describeCollections(jurisdiction, corpus)}.`;
    throw new AppError('no_edition_on_file', `No section '${citation}' is on file for ${jurisdiction}.${hint}`);
  }
  const { collection, key } = resolved;
  return { ref: { jurisdiction, corpus: collection.corpus, key }, collection, pinpoint: resolved.pinpoint };
}

/**
 * Why nothing of `section` is in force on `asOf`, as the lookup says it: the span of its `versions` (all of them,
 * oldest first) with didYouMean, or, when it has none, whether its collection or title is carried and which keys
 * beside it are. A miss asks the store whether the corpus is carried only when nothing else read shows it.
 */
export async function notInForceError(
  store: VersionStore,
  section: ResolvedSection,
  versions: readonly VersionSummary[],
  asOf: string,
  coverageUrl = '/law/coverage',
): Promise<AppError> {
  const { ref, collection } = section;
  const { key } = ref;
  if (versions.length > 0) {
    return new AppError(
      'no_edition_on_file',
      `${collection.display(key)} has no version in force on ${asOf}; versions on file run ${spanText(versions)}.${gapText(versions, asOf)}`,
      { didYouMean: versionSuggestions(versions, asOf) },
    );
  }

  // Keys sort by collection, and within a collection by title: the keys on either side of `key` include one of its
  // own collection (and title) whenever any is carried, as every key between two of them is one of them too.
  const nearby = await store.nearbyKeySummaries(ref.jurisdiction, ref.corpus, ref.key, MAX_SUGGESTIONS);
  if (nearby.length === 0) await assertCarried(store, ref.jurisdiction, collection.corpus, coverageUrl);
  const where = `${coverageUrl}?jurisdiction=${encodeURIComponent(ref.jurisdiction)}&corpus=${collection.corpus}`;
  const sameCollection = nearby.filter((k) => collection.ownsKey(k.key));
  if (sameCollection.length === 0) {
    return new AppError(
      'no_edition_on_file',
      `No version of ${collection.display(key)} is on file: ${collection.name} is not a carried collection. See ${where} for what is.`,
      { didYouMean: [], coverageUrl: where },
    );
  }
  const title = collection.titleOf?.(key) ?? null;
  const sameTitle = title === null ? sameCollection : sameCollection.filter((k) => collection.titleOf?.(k.key) === title);
  if (title !== null && sameTitle.length === 0) {
    return new AppError(
      'no_edition_on_file',
      `No version of ${collection.display(key)} is on file: ${describeTitle(collection, title)} is not carried. See ${where} for the titles that are.`,
      { didYouMean: [], coverageUrl: where },
    );
  }
  const similar = await similarKeys(store, ref, sameTitle, asOf);
  return new AppError('no_edition_on_file', `No version of ${collection.display(key)} is on file.`, { didYouMean: similar });
}

async function assertCarried(store: VersionStore, jurisdiction: string, corpus: Corpus | undefined, coverageUrl: string): Promise<void> {
  if (await store.carries(jurisdiction, corpus)) return;
  const what = corpus ? `the ${corpus} corpus` : 'any corpus';
  throw new AppError('not_carried', `Nothing of ${what} is carried for jurisdiction '${jurisdiction}'. See ${coverageUrl} for what is.`, {
    coverageUrl,
  });
}

function describeCollections(jurisdiction: string, corpus?: Corpus): string {
  const names = collectionsOf(jurisdiction, corpus).map((c) => c.name);
  return names.length ? names.join(', ') : `any collection of ${jurisdiction}`;
}

const spanText = (versions: readonly VersionSummary[]): string => {
  const ranges = versions.map((v) => `${localDateOf(v.validFrom)}–${v.validTo.startsWith('9999') ? 'open' : localDateOf(v.validTo)}`);
  return ranges.length > 4 ? `${ranges.slice(0, 2).join(', ')}, … ${ranges.at(-1)} (${ranges.length} versions)` : ranges.join(', ');
};

/** When the date falls after a version that ended: no edition on file shows a text from its end to the next one. */
function gapText(versions: readonly VersionSummary[], asOf: string): string {
  const before = versions.filter((v) => localDateOf(v.validTo) <= asOf).at(-1);
  if (!before) return '';
  const after = versions.find((v) => localDateOf(v.validFrom) > asOf);
  const from = localDateOf(before.validTo);
  return after
    ? ` No edition on file shows its text from ${from} until ${localDateOf(after.validFrom)}.`
    : ` No edition on file shows its text on or after ${from}.`;
}

const suggestion = (v: VersionSummary, reason: SuggestionReason): Suggestion => ({
  citation: v.citation.key,
  display: v.citation.display,
  validFrom: v.validFrom,
  validTo: v.validTo,
  versionLabel: v.versionLabel,
  reason,
});

/** Where the key's versions lie relative to the asked date: the first one, the next one, the last one. */
function versionSuggestions(versions: readonly VersionSummary[], asOf: string): Suggestion[] {
  const first = versions[0]!;
  const last = versions.at(-1)!;
  const out: Suggestion[] = [];
  if (asOf < localDateOf(first.validFrom)) out.push(suggestion(first, 'earliest-version'));
  else {
    const next = versions.find((v) => localDateOf(v.validFrom) > asOf);
    if (next) out.push(suggestion(next, 'next-version'));
    if (last !== next) out.push(suggestion(last, 'latest-version'));
  }
  return out;
}

/**
 * Each of `keys` with its version in force on `asOf`, or else its latest (keys with no version are left out). A key
 * whose history summary shows a single version has that one as its answer whatever the date: all of those are read
 * in one batch by their validFrom, and only a key with several versions (or one whose stored version is not where its
 * summary says, as during an ingest) is listed and chosen from.
 */
async function similarKeys(store: VersionStore, ref: SectionRef, keys: readonly NearbyKey[], asOf: string): Promise<Suggestion[]> {
  const single = keys.flatMap(({ key, summary }) =>
    summary?.versions === 1 && summary.firstValidFrom ? [{ ref: { ...ref, key }, validFrom: summary.firstValidFrom }] : [],
  );
  const listed = (key: string) => store.listVersions({ ...ref, key }).then((versions) => chooseSimilar(versions, asOf));
  // The single versions in one batch, and at the same time the lists of the others.
  const singleKeys = new Set(single.map((s) => s.ref.key));
  const [fetched, others] = await Promise.all([
    single.length ? store.getSummaries(single) : [],
    Promise.all(keys.map(({ key }) => (singleKeys.has(key) ? null : listed(key)))),
  ]);
  const found = new Map(single.map((s, i) => [s.ref.key, fetched[i]] as const));
  const chosen = await Promise.all(
    keys.map(async ({ key }, i) => (singleKeys.has(key) ? (found.get(key) ?? (await listed(key))) : others[i])),
  );
  return chosen.flatMap((v) => (v ? [suggestion(v, 'similar-key')] : []));
}

/** From a key's whole list: its version in force on `asOf`, or else its latest. */
function chooseSimilar(versions: readonly VersionSummary[], asOf: string): VersionSummary | null {
  const inForce = versions.find((v) => localDateOf(v.validFrom) <= asOf && asOf < localDateOf(v.validTo));
  return inForce ?? versions.at(-1) ?? null;
}
