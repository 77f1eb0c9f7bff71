import type { CadenceClass, Citation, Corpus, TemporalBasis } from './model.ts';
import { STATE_CODES } from './state-codes.ts';
import { USC_PRINTED, uscDisplay, uscNormalizeKey, uscOwnsKey, uscParsePrinted, uscParts } from './usc-keys.ts';
import { uscTitleName } from './usc-titles.ts';

/**
 * A collection is one body of law from one source (the US Code, the D.C. Code, FRAP ...): it owns a key syntax,
 * its printed citation forms, its display form and its official source address. A jurisdiction's corpus may hold
 * several collections (us/rules holds FRAP and the Supreme Court Rules).
 */
export interface Collection {
  id: string;
  jurisdiction: string;
  corpus: Corpus;
  name: string;
  cadenceClass: CadenceClass;
  temporalBasis: TemporalBasis;
  /** IANA zone whose offset validity timestamps carry. */
  timeZone: string;
  sourceSystem: string;
  /** Does `key` (already normalized) belong to this collection? */
  ownsKey(key: string): boolean;
  /** Canonical key from a user-typed key (case, spaces), or null if it cannot be one of ours. */
  normalizeKey(raw: string): string | null;
  /** Key from a common printed citation form, or null. */
  parsePrinted(text: string): string | null;
  /**
   * The grammar `parsePrinted` reads, as anchored patterns whose pinpoint is everything from the first "(" on: the
   * citation finder (caselaw/citations/statutes.ts) looks for the same forms in running text.
   */
  printedPatterns: readonly RegExp[];
  display(key: string): string;
  /** Parts derivable from the key alone; ingest may add more (chapter). */
  parts(key: string): Record<string, string>;
  sourceUrl(key: string): string;
  /**
   * A collection published in titles (the US Code, the D.C. Code): the title a key belongs to, or a key prefix such
   * as an edition's scope `28-`. Absent where the collection is one set (a rule set): the collection is the unit.
   */
  titleOf?(keyOrPrefix: string): string | null;
  /** The title's name, where it is known (the US Code's headings); undefined otherwise. */
  titleName?(title: string): string | undefined;
}

const squash = (s: string) => s.trim().replace(/\s+/g, ' ');

/** Parse a printed form: `pattern` captures the rule or section number in its last group. */
const printed =
  (patterns: RegExp[], toKey: (m: RegExpExecArray) => string | null) =>
  (text: string): string | null => {
    const t = squash(text);
    for (const p of patterns) {
      const m = p.exec(t);
      if (m) return toKey(m);
    }
    return null;
  };

// ---- United States Code -------------------------------------------------------------------------------------
const USC_TITLE = /^(\d+[a-z]?)-/;
const usc: Collection = {
  id: 'usc',
  jurisdiction: 'us',
  corpus: 'statutes',
  name: 'United States Code',
  cadenceClass: 'edition',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'OLRC United States Code (USLM XML release points)',
  ownsKey: uscOwnsKey,
  normalizeKey: uscNormalizeKey,
  parsePrinted: uscParsePrinted,
  printedPatterns: USC_PRINTED,
  display: uscDisplay,
  parts: uscParts,
  // The fallback for a version whose edition names no address of its own (see EditionRecord.sourceUrl).
  sourceUrl: (key) => {
    const { title, section } = uscParts(key);
    return title && section
      ? `https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title${title}-section${section}&num=0&edition=prelim`
      : 'https://uscode.house.gov/';
  },
  titleOf: (keyOrPrefix) => USC_TITLE.exec(keyOrPrefix)?.[1] ?? null,
  titleName: uscTitleName,
};

// ---- Code of the District of Columbia -----------------------------------------------------------------------
// Title 28's Uniform Commercial Code numbers its sections `28:1-101` (article 1, section 101), as the Council prints them.
const DC_KEY = /^(\d+[A-Za-z]?)(?:-|:(?=\d+[A-Za-z]?-))(\d+[0-9A-Za-z.:-]*)$/;
const DC_TITLE = /^(\d+[A-Za-z]?)[-:]/;
const DC_PRINTED = [
  /^D\.?\s?C\.?(?:\s+|(?<=\.))(?:Official\s+)?Code(?:\s+Ann\.?)?\s*(?:§§?|sec\.?|section)?\s*(\d+[A-Za-z]?\s*[-:]\s*\d+[0-9A-Za-z.:-]*)(?:\s*\(.*)?$/i,
];
const dcCode: Collection = {
  id: 'dc-code',
  jurisdiction: 'dc',
  corpus: 'statutes',
  name: 'Code of the District of Columbia',
  cadenceClass: 'continuous',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'Council of the District of Columbia, dc-library XML (DCCouncil/law-xml-codified)',
  ownsKey: (key) => DC_KEY.test(key),
  normalizeKey: (raw) => {
    const k = squash(raw).replace(/\s*-\s*/, '-');
    return DC_KEY.test(k) ? k : null;
  },
  parsePrinted: printed(DC_PRINTED, (m) => m[1]!.replace(/\s+/g, '')),
  printedPatterns: DC_PRINTED,
  display: (key) => `D.C. Code § ${key}`,
  parts: (key): Record<string, string> => {
    const m = DC_KEY.exec(key);
    return m ? { title: m[1]!, section: key } : {};
  },
  sourceUrl: (key) => `https://code.dccouncil.gov/us/dc/council/code/sections/${key}`,
  titleOf: (keyOrPrefix) => DC_TITLE.exec(keyOrPrefix)?.[1] ?? null,
};

// ---- Court rules ------------------------------------------------------------------------------------------------
interface RuleSetSpec {
  id: string;
  prefix: string;
  jurisdiction: string;
  name: string;
  cadenceClass: CadenceClass;
  temporalBasis: TemporalBasis;
  timeZone: string;
  sourceSystem: string;
  display: (n: string) => string;
  printed: RegExp[];
  /** In "Sup. Ct. R. 33.1" the decimal names a paragraph of Rule 33; in "Fed. R. App. P. 26.1" it names a rule. */
  decimalIsParagraph?: boolean;
  /** Rule numbers beyond decimals (FRCP's `71a`, `supp-c`): the key's number and the printed number it is read from. */
  numbering?: RuleNumbering;
  /** Citation parts beyond `rule`. */
  parts?: (n: string) => Record<string, string>;
  sourceUrl: (n: string) => string;
}

interface RuleNumbering {
  /** A key's rule number (after `prefix-`), as a regex source. */
  key: string;
  /** The printed rule number (the last capture of a printed pattern) → the key's number, or null. */
  fromPrinted: (printed: string) => string | null;
}

const DECIMAL = String.raw`\d+(?:\.\d+)?`;
const DECIMAL_NUMBERING: RuleNumbering = { key: DECIMAL, fromPrinted: (n) => (new RegExp(`^${DECIMAL}$`).test(n) ? n : null) };

function ruleSet(spec: RuleSetSpec): Collection {
  const numbering = spec.numbering ?? DECIMAL_NUMBERING;
  const keyRe = new RegExp(`^${spec.prefix}-(${numbering.key})$`);
  const numberOf = (key: string) => keyRe.exec(key)?.[1] ?? key;
  return {
    id: spec.id,
    jurisdiction: spec.jurisdiction,
    corpus: 'rules',
    name: spec.name,
    cadenceClass: spec.cadenceClass,
    temporalBasis: spec.temporalBasis,
    timeZone: spec.timeZone,
    sourceSystem: spec.sourceSystem,
    ownsKey: (key) => keyRe.test(key),
    normalizeKey: (raw) => {
      const k = squash(raw).toLowerCase().replace(/\s+/g, '-');
      return keyRe.test(k) ? k : null;
    },
    parsePrinted: printed(spec.printed, (m) => {
      const printedNumber = squash(m[m.length - 1]!);
      const n = numbering.fromPrinted(spec.decimalIsParagraph ? printedNumber.replace(/\.\d+$/, '') : printedNumber);
      return n === null ? null : `${spec.prefix}-${n}`;
    }),
    printedPatterns: spec.printed,
    display: (key) => spec.display(numberOf(key)),
    parts: (key) => ({ rule: numberOf(key), ...spec.parts?.(numberOf(key)) }),
    sourceUrl: (key) => spec.sourceUrl(numberOf(key)),
  };
}

// A pin cite such as "32(a)(7)" or "33.1(b)" still names rule 32 / 33: the number is read up to the first "(".
const ruleTail = (number: string) => String.raw`\s*(${number})(?:\s*\(.*)?$`;
const RULE_TAIL = ruleTail(DECIMAL);

const frap = ruleSet({
  id: 'frap',
  prefix: 'frap',
  jurisdiction: 'us',
  name: 'Federal Rules of Appellate Procedure',
  cadenceClass: 'annual',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'Federal Rules of Appellate Procedure (Judicial Conference of the United States)',
  display: (n) => `Fed. R. App. P. ${n}`,
  printed: [
    new RegExp(
      String.raw`^(?:Fed\.?\s?R\.?\s?App\.?\s?P(?:roc)?\.?|F\.?\s?R\.?\s?A\.?\s?P\.?|Federal\s+Rules?\s+of\s+Appellate\s+Procedure)(?:\s+Rule)?` +
        RULE_TAIL,
      'i',
    ),
  ],
  sourceUrl: () => 'https://www.uscourts.gov/rules-policies/current-rules-practice-procedure/federal-rules-appellate-procedure',
});

const USCOURTS_RULES = 'https://www.uscourts.gov/rules-policies/current-rules-practice-procedure';

/** Printed forms of a federal rule set: "Fed. R. <abbr> P. 12(b)(6)", "F.R.<letters>.P. 12", "Federal Rules of ... Rule 12". */
function federalRulePrinted(abbr: string, letters: string, words: string, number = DECIMAL): RegExp[] {
  return [
    new RegExp(
      String.raw`^(?:Fed\.?\s?R\.?\s?${abbr}|F\.?\s?R\.?\s?${letters}|Federal\s+Rules?\s+of\s+${words})(?:\s+Rule)?` + ruleTail(number),
      'i',
    ),
  ];
}

/**
 * FRCP numbers beyond decimals: Rule 71A (renumbered 71.1 in 2007; its placeholder stays in the Code) and the
 * Supplemental Rules for Admiralty or Maritime Claims and Asset Forfeiture Actions, Rules A to G, printed
 * "Fed. R. Civ. P. Supp. R. C(6)". Keys `frcp-71a`, `frcp-supp-c`.
 */
const FRCP_SUPPLEMENTAL = /^Supp(?:lemental|\.)?\s*(?:Adm(?:iralty|\.)?\s*)?R(?:ule|\.)?\s*([A-G])$/i;
const FRCP_NUMBERING: RuleNumbering = {
  key: String.raw`\d+(?:\.\d+)?|\d+[a-z]|supp-[a-g]`,
  fromPrinted: (n) => {
    const supp = FRCP_SUPPLEMENTAL.exec(n);
    if (supp) return `supp-${supp[1]!.toLowerCase()}`;
    return /^(?:\d+(?:\.\d+)?|\d+[a-z])$/i.test(n) ? n.toLowerCase() : null;
  },
};
const FRCP_PRINTED_NUMBER = String.raw`\d+(?:\.\d+)?|\d+[A-Za-z](?![A-Za-z])|Supp(?:lemental|\.)?\s*(?:Adm(?:iralty|\.)?\s*)?R(?:ule|\.)?\s*[A-Ga-g](?![A-Za-z])`;
const frcpDisplayNumber = (n: string): string => {
  const supp = /^supp-([a-g])$/.exec(n);
  return supp ? `Supp. R. ${supp[1]!.toUpperCase()}` : n.toUpperCase();
};

const frcp = ruleSet({
  id: 'frcp',
  prefix: 'frcp',
  jurisdiction: 'us',
  name: 'Federal Rules of Civil Procedure',
  cadenceClass: 'annual',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'Federal Rules of Civil Procedure (Judicial Conference of the United States)',
  display: (n) => `Fed. R. Civ. P. ${frcpDisplayNumber(n)}`,
  printed: federalRulePrinted(
    String.raw`Civ\.?\s?P(?:roc)?\.?`,
    String.raw`C\.?\s?P\.?`,
    String.raw`Civil\s+Procedure`,
    FRCP_PRINTED_NUMBER,
  ),
  numbering: FRCP_NUMBERING,
  parts: (n): Record<string, string> =>
    n.startsWith('supp-') ? { supplementalRules: 'Supplemental Rules for Admiralty or Maritime Claims and Asset Forfeiture Actions' } : {},
  sourceUrl: () => `${USCOURTS_RULES}/federal-rules-civil-procedure`,
});

const fre = ruleSet({
  id: 'fre',
  prefix: 'fre',
  jurisdiction: 'us',
  name: 'Federal Rules of Evidence',
  cadenceClass: 'annual',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'Federal Rules of Evidence (Judicial Conference of the United States)',
  display: (n) => `Fed. R. Evid. ${n}`,
  printed: federalRulePrinted(String.raw`Evid\.?`, String.raw`E\.?`, 'Evidence'),
  sourceUrl: () => `${USCOURTS_RULES}/federal-rules-evidence`,
});

const frcrp = ruleSet({
  id: 'frcrp',
  prefix: 'frcrp',
  jurisdiction: 'us',
  name: 'Federal Rules of Criminal Procedure',
  cadenceClass: 'annual',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'Federal Rules of Criminal Procedure (Judicial Conference of the United States)',
  display: (n) => `Fed. R. Crim. P. ${n}`,
  printed: federalRulePrinted(String.raw`Crim\.?\s?P(?:roc)?\.?`, String.raw`Cr\.?\s?P\.?`, String.raw`Criminal\s+Procedure`),
  sourceUrl: () => `${USCOURTS_RULES}/federal-rules-criminal-procedure`,
});

const frbp = ruleSet({
  id: 'frbp',
  prefix: 'frbp',
  jurisdiction: 'us',
  name: 'Federal Rules of Bankruptcy Procedure',
  cadenceClass: 'annual',
  temporalBasis: 'compiled-edition',
  timeZone: 'America/New_York',
  sourceSystem: 'Federal Rules of Bankruptcy Procedure (Judicial Conference of the United States)',
  display: (n) => `Fed. R. Bankr. P. ${n}`,
  printed: federalRulePrinted(String.raw`Bankr\.?\s?P(?:roc)?\.?`, String.raw`B\.?\s?P\.?`, String.raw`Bankruptcy\s+Procedure`),
  sourceUrl: () => `${USCOURTS_RULES}/federal-rules-bankruptcy-procedure`,
});

const supCt = ruleSet({
  id: 'sup-ct',
  prefix: 'sup-ct-r',
  jurisdiction: 'us',
  name: 'Rules of the Supreme Court of the United States',
  cadenceClass: 'irregular',
  temporalBasis: 'retrieval-date',
  timeZone: 'America/New_York',
  sourceSystem: 'Rules of the Supreme Court of the United States',
  display: (n) => `Sup. Ct. R. ${n}`,
  decimalIsParagraph: true,
  printed: [
    new RegExp(
      String.raw`^(?:Sup\.?\s?Ct\.?\s?R(?:ule)?\.?|S\.?\s?Ct\.?\s?R(?:ule)?\.?|Supreme\s+Court\s+Rules?|Rules?\s+of\s+the\s+Supreme\s+Court(?:\s+of\s+the\s+United\s+States)?)` +
        RULE_TAIL,
      'i',
    ),
  ],
  sourceUrl: () => 'https://www.supremecourt.gov/filingandrules/rules_guidance.aspx',
});

const ndrappp = ruleSet({
  id: 'ndrappp',
  prefix: 'ndrappp',
  jurisdiction: 'nd',
  name: 'North Dakota Rules of Appellate Procedure',
  cadenceClass: 'irregular',
  temporalBasis: 'retrieval-date',
  timeZone: 'America/Chicago',
  sourceSystem: 'North Dakota Supreme Court (ndcourts.gov)',
  display: (n) => `N.D.R.App.P. ${n}`,
  printed: [
    new RegExp(
      String.raw`^(?:N\.?\s?D\.?\s?R\.?\s?App\.?\s?P\.?|North\s+Dakota\s+Rules?\s+of\s+Appellate\s+Procedure)(?:\s+Rule)?` + RULE_TAIL,
      'i',
    ),
  ],
  sourceUrl: (n) => `https://www.ndcourts.gov/legal-resources/rules/ndrappp/${n}`,
});

export const COLLECTIONS: readonly Collection[] = [usc, dcCode, frap, frcp, fre, frcrp, frbp, supCt, ndrappp, ...STATE_CODES];

const byId = new Map(COLLECTIONS.map((c) => [c.id, c]));

export function collectionById(id: string): Collection {
  const c = byId.get(id);
  if (!c) throw new Error(`unknown collection '${id}' (known: ${[...byId.keys()].join(', ')})`);
  return c;
}

export const collectionsOf = (jurisdiction: string, corpus?: Corpus): Collection[] =>
  COLLECTIONS.filter((c) => c.jurisdiction === jurisdiction && (corpus === undefined || c.corpus === corpus));

/** The collection that owns a stored key. */
export function collectionOfKey(jurisdiction: string, corpus: Corpus, key: string): Collection | undefined {
  return collectionsOf(jurisdiction, corpus).find((c) => c.ownsKey(key));
}

/** A title as a message names it: `Title 28 of the United States Code (Judiciary and Judicial Procedure)`. */
export function describeTitle(collection: Collection, title: string): string {
  const name = collection.titleName?.(title);
  // An appendix title's name is already a title's name ("Title 5 Appendix").
  if (name?.startsWith('Title ')) return `${name} of the ${collection.name}`;
  return `Title ${title} of the ${collection.name}${name ? ` (${name})` : ''}`;
}

export function citationFor(collection: Collection, key: string, extraParts: Record<string, string> = {}): Citation {
  return {
    jurisdiction: collection.jurisdiction,
    corpus: collection.corpus,
    key,
    display: collection.display(key),
    parts: { ...collection.parts(key), ...extraParts },
  };
}
