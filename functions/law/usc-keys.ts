/**
 * Keys and printed forms of the United States Code (docs/DECISIONS.md, "Keys of the US Code"):
 *
 * - a section: `<title>-<section>`, lowercase, a hyphen for OLRC's en dash: `28-1291`, `30-28-1`, `17-104a`;
 * - a placeholder for a run of sections: `<title>-<first>-to-<last>` (`3-202-to-204`), from `s202 to 204` and `s202...204`;
 * - an appendix title is its number and `a`: `5a-…`, `11a-…`, `18a-…`;
 * - a section of an act set out in an appendix, which OLRC numbers by public law: `<title>-pl<congress>-<law>-<section>`
 *   (`18a-pl91-538-2`, the Interstate Agreement on Detainers, printed "18 U.S.C. App. 2 § 2");
 * - a reorganization plan of the Title 5 appendix: `5a-reorg-plan-<year>-<number>` (`5a-reorg-plan-1970-3`).
 */

/** A section number: hyphen-separated parts (`2000e-2`, `28-1`), none of them the `to` of a run. */
const NUM = String.raw`\d(?:[0-9a-z.]*[0-9a-z])?(?:-(?!to(?:-|$))[0-9a-z](?:[0-9a-z.]*[0-9a-z])?)*`;
const USC_KEY = new RegExp(String.raw`^(\d+[a-z]?)-(reorg-plan-\d{4}-[0-9a-z]+|pl\d+-\d+-${NUM}|${NUM}-to-${NUM}|${NUM})$`);
const RANGE = new RegExp(`^(${NUM})-to-(${NUM})$`);
const ACT = new RegExp(String.raw`^pl(\d+)-(\d+)-(${NUM})$`);
const PLAN = /^reorg-plan-(\d{4})-([0-9a-z]+)$/;

/**
 * The appendix numbers printed citations give the acts set out in an appendix ("5 U.S.C. App. 3 § 8G" is the Inspector
 * General Act of 1978, Pub. L. 95-452). The publisher's identifiers (and so the keys) name the public law instead.
 */
const APPENDIX_ACTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // Federal Advisory Committee Act; Inspector General Act of 1978; Ethics in Government Act of 1978.
  '5a': { '2': '92-463', '3': '95-452', '4': '95-521' },
  // Interstate Agreement on Detainers Act; Classified Information Procedures Act.
  '18a': { '2': '91-538', '3': '96-456' },
};

const appendixNumberOf = (title: string, publicLaw: string): string | undefined =>
  Object.entries(APPENDIX_ACTS[title] ?? {}).find(([, pl]) => pl === publicLaw)?.[0];

export const uscOwnsKey = (key: string): boolean => USC_KEY.test(key);

/** A section number as keys write it: lowercase, OLRC's en dash (U+2013) as a hyphen. */
export const sectionNumberKey = (num: string): string =>
  num
    .trim()
    .toLowerCase()
    .replace(/\u2013/g, '-');

/** The key part of a section or of a run of sections (`202`, `202-to-204`). */
export const sectionPart = (first: string, last?: string): string =>
  last === undefined ? sectionNumberKey(first) : `${sectionNumberKey(first)}-to-${sectionNumberKey(last)}`;

/** A typed key (`3-202 to 204`, `30-28–1`, `18A-PL91-538-2`) in canonical form, or null. */
export function uscNormalizeKey(raw: string): string | null {
  const k = raw
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase()
    .replace(/\u2013/g, '-')
    .replace(/[\s-]*(?:\.\.\.|\bto\b)[\s-]*/g, '-to-')
    .replace(/\s*-\s*/g, '-');
  return USC_KEY.test(k) ? k : null;
}

const USC = String.raw`(?:U\.?\s?S\.?\s?C\.?(?:\s?A\.?|\s?S\.?)?|U\.\s?S\.\s+Code|United\s+States\s+Code(?:\s+Annotated)?)`;
const APP = String.raw`App(?:\.|x\.?|endix)?`;
const SEC = String.raw`(?:§§?|secs?\.?|sections?)`;
const PRINTED_NUM = String.raw`\d[0-9a-z.\-\u2013]*`;
const THROUGH = String.raw`\s*(?:to|through|thru|\.\.\.)\s*`;
const PINPOINT = String.raw`(?:\s*\(.*)?`;

const PLAN_PRINTED = /^Reorg(?:\.|anization)\s*Plan\s+No\.?\s*(\d+|[ivxlc]+)\s+of\s+(\d{4})\b/i;
const APPENDIX_ACT_PRINTED = new RegExp(String.raw`^(\d+)\s*${USC}\s*${APP}\s*(\d+)\s*,?\s*${SEC}\s*(${PRINTED_NUM})${PINPOINT}$`, 'i');
const SECTION_PRINTED = new RegExp(
  String.raw`^(\d+)\s*,?\s*${USC}\s*,?\s*(${APP}\s*,?\s*)?(${SEC})?\s*(${PRINTED_NUM})(?:${THROUGH}(${PRINTED_NUM}))?${PINPOINT}$`,
  'i',
);
/** `section 1291 of title 28` (the Code's own way of citing itself), `section 1983(a) of title 42, United States Code`. */
const SECTION_OF_TITLE = new RegExp(
  String.raw`^(?:sections?|§)\s*(${PRINTED_NUM})((?:\([0-9a-z]{1,4}\))*)\s+of\s+title\s+(\d+)(?:\s*,?\s*(?:of\s+the\s+)?United\s+States\s+Code(?:\s+Annotated)?)?$`,
  'i',
);

/** The printed forms (anchored; a pinpoint is what follows the number from its first "("), for finding them in text. */
export const USC_PRINTED: readonly RegExp[] = [APPENDIX_ACT_PRINTED, SECTION_PRINTED, SECTION_OF_TITLE];

/**
 * The key of a printed citation: `28 U.S.C. § 1291(a)`, `3 U.S.C. §§ 202 to 204`, `18 U.S.C. App. § 1202`,
 * `18 U.S.C. App. 2 § 2`, `Reorg. Plan No. 3 of 1970`; or null.
 */
export function uscParsePrinted(text: string): string | null {
  const t = text.trim().replace(/\s+/g, ' ');
  const plan = PLAN_PRINTED.exec(t);
  if (plan) return `5a-reorg-plan-${plan[2]}-${plan[1]!.toLowerCase()}`;
  const act = APPENDIX_ACT_PRINTED.exec(t);
  if (act) {
    const title = `${act[1]}a`;
    const publicLaw = APPENDIX_ACTS[title]?.[act[2]!];
    return publicLaw ? `${title}-pl${publicLaw}-${sectionNumberKey(act[3]!)}` : null;
  }
  const ofTitle = SECTION_OF_TITLE.exec(t);
  if (ofTitle) {
    const key = `${ofTitle[3]}-${sectionPart(ofTitle[1]!.replace(/[.\-\u2013]+$/, ''))}`;
    return USC_KEY.test(key) ? key : null;
  }
  const m = SECTION_PRINTED.exec(t);
  if (!m) return null;
  const [, title, appendix, sign, first, last] = m;
  // "§§ 202–204" is a run of sections; "§ 28–1" is one section numbered 28-1.
  const plural = sign !== undefined && /^(?:§§|secs|sections)/i.test(sign);
  const run = last === undefined && plural ? /^(\d+[a-z]*)[-\u2013](\d+[a-z]*)$/i.exec(first!) : null;
  const section = run ? sectionPart(run[1]!, run[2]!) : sectionPart(first!, last);
  const key = `${title}${appendix ? 'a' : ''}-${section}`;
  return USC_KEY.test(key) ? key : null;
}

const titleDisplay = (title: string): string => (title.endsWith('a') ? `${title.slice(0, -1)} U.S.C. App.` : `${title} U.S.C.`);

export function uscDisplay(key: string): string {
  const m = USC_KEY.exec(key);
  if (!m) return key;
  const [, title, section] = m as unknown as [string, string, string];
  const plan = PLAN.exec(section);
  if (plan) return `Reorg. Plan No. ${/^\d+$/.test(plan[2]!) ? plan[2] : plan[2]!.toUpperCase()} of ${plan[1]}, ${titleDisplay(title)}`;
  const act = ACT.exec(section);
  if (act) {
    const publicLaw = `${act[1]}-${act[2]}`;
    const n = appendixNumberOf(title, publicLaw);
    return n ? `${titleDisplay(title)} ${n} § ${act[3]}` : `${titleDisplay(title)}, Pub. L. ${publicLaw}, § ${act[3]}`;
  }
  const range = RANGE.exec(section);
  if (range) return `${titleDisplay(title)} §§ ${range[1]} to ${range[2]}`;
  return `${titleDisplay(title)} § ${section}`;
}

export function uscParts(key: string): Record<string, string> {
  const m = USC_KEY.exec(key);
  if (!m) return {};
  const [, title, section] = m as unknown as [string, string, string];
  const plan = PLAN.exec(section);
  if (plan) return { title, reorganizationPlan: `${plan[2]} of ${plan[1]}` };
  const act = ACT.exec(section);
  if (act) return { title, publicLaw: `${act[1]}-${act[2]}`, section: act[3]! };
  return { title, section };
}
