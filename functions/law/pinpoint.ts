/**
 * A pinpoint is the part of a printed citation after the section or rule number: `(a)(7)` in
 * `Fed. R. App. P. 32(a)(7)`, `(b)(6)` in `Fed. R. Civ. P. 12(b)(6)`. A lookup answers the whole section and says
 * what it did with the pinpoint: the subdivision's text when the version's body has it, else why not. It never
 * silently widens to the whole section.
 *
 * Bodies hold one subdivision per line, its label first ("(a) …", "(1) …"), as every connector writes them.
 */

export interface PinpointAnswer {
  /** The pinpoint as the citation printed it. */
  requested: string;
  applied: boolean;
  /** The citation of the subdivision (`Fed. R. App. P. 32(a)(7)`), when applied. */
  display: string | null;
  /** The subdivision's lines of the version's bodyText (its label line and everything under it), when applied. */
  text: string | null;
  /** Why it was not applied, when it was not. */
  reason: string | null;
}

type Kind = 'lower' | 'num' | 'upper' | 'roman' | 'upperRoman' | 'doubleLower' | 'doubleUpper';

const ROMAN = /^(?:x{0,3})(?:ix|iv|v?i{0,3})$/;
const isRoman = (s: string) => s !== '' && ROMAN.test(s);
const LABEL = /^(?:\d{1,3}[a-z]?|[a-z]{1,6}|[A-Z]{1,6})$/;

/** The kinds a label may be, the letter first where it may also be a roman numeral. */
function kindsOf(label: string): Kind[] {
  if (/^\d/.test(label)) return ['num'];
  if (/^[a-z]$/.test(label)) return isRoman(label) ? ['lower', 'roman'] : ['lower'];
  if (/^[A-Z]$/.test(label)) return isRoman(label.toLowerCase()) ? ['upper', 'upperRoman'] : ['upper'];
  if (/^([a-z])\1$/.test(label)) return isRoman(label) ? ['doubleLower', 'roman'] : ['doubleLower'];
  if (/^([A-Z])\1$/.test(label)) return isRoman(label.toLowerCase()) ? ['doubleUpper', 'upperRoman'] : ['doubleUpper'];
  if (/^[a-z]+$/.test(label)) return isRoman(label) ? ['roman'] : [];
  if (/^[A-Z]+$/.test(label)) return isRoman(label.toLowerCase()) ? ['upperRoman'] : [];
  return [];
}

const PINPOINT = /^(?:\s*\(\s*([0-9A-Za-z]+)\s*\))+\s*$/;

/** The labels of a pinpoint (`(a)(7)(B)` → a, 7, B), or null when it is something else (`(2018)`, `(a) and (c)`). */
export function pinpointLabels(tail: string): string[] | null {
  if (!PINPOINT.test(tail)) return null;
  const labels = [...tail.matchAll(/\(\s*([0-9A-Za-z]+)\s*\)/g)].map((m) => m[1]!);
  return labels.every((l) => LABEL.test(l) && kindsOf(l).length > 0) ? labels : null;
}

/** A label opening a line, at its depth in the body's outline (1 = outermost). */
interface Opened {
  label: string;
  depth: number;
}

const LINE_LABELS = /^((?:\([0-9A-Za-z]{1,6}\))+)(?=\s|$)/;
const ROMANS = [
  'i',
  'ii',
  'iii',
  'iv',
  'v',
  'vi',
  'vii',
  'viii',
  'ix',
  'x',
  'xi',
  'xii',
  'xiii',
  'xiv',
  'xv',
  'xvi',
  'xvii',
  'xviii',
  'xix',
  'xx',
];

/** Does `label` come right after `previous` in the numbering of `kind`? */
function follows(kind: Kind, label: string, previous: string | undefined): boolean {
  const l = label.toLowerCase();
  if (kind === 'roman' || kind === 'upperRoman') {
    return previous === undefined ? l === 'i' : ROMANS.indexOf(l) === ROMANS.indexOf(previous.toLowerCase()) + 1;
  }
  if (previous === undefined) return false;
  return l.charCodeAt(0) === previous.toLowerCase().charCodeAt(0) + 1;
}

/**
 * The labels opening each line and their depths. The outline is read as it goes: a label of a kind already open
 * is a sibling at that depth, a label of a new kind opens the next depth (so "(1)(a)" outlines, as in the FRCP's
 * Supplemental Rules, read as well as "(a)(1)"). A letter that may be a roman numeral ("(i)", "(v)") is the one it
 * follows; when it follows both, a numeral after a line ending in a colon or a dash.
 */
function outline(lines: readonly string[]): Opened[][] {
  const stack: { kind: Kind; label: string }[] = [];
  return lines.map((line, i) => {
    const head = LINE_LABELS.exec(line)?.[1];
    if (!head) return [];
    const opened: Opened[] = [];
    for (const [, label] of head.matchAll(/\(([0-9A-Za-z]{1,6})\)/g)) {
      const kinds = kindsOf(label!);
      if (!kinds.length) break;
      const depthOf = (k: Kind) => stack.findIndex((s) => s.kind === k);
      const candidates = kinds.map((kind) => {
        const at = depthOf(kind);
        return { kind, at, follows: follows(kind, label!, at >= 0 ? stack[at]!.label : undefined) };
      });
      let pick = candidates[0]!;
      if (candidates.length > 1) {
        const [letter, numeral] = candidates as [(typeof candidates)[0], (typeof candidates)[0]];
        if (letter.follows && numeral.follows) pick = /[:—-]$/.test((lines[i - 1] ?? '').trim()) ? numeral : letter;
        else if (numeral.follows) pick = numeral;
        else pick = letter;
      }
      const depth = pick.at >= 0 ? pick.at : stack.length;
      stack.length = depth;
      stack.push({ kind: pick.kind, label: label! });
      opened.push({ label: label!, depth: depth + 1 });
    }
    return opened;
  });
}

/**
 * The lines of `bodyText` that make up the subdivision `labels` names (its label line and every line under it), or
 * null when the body has no such subdivision.
 */
export function findSubdivision(bodyText: string, labels: readonly string[]): string | null {
  if (labels.length === 0) return null;
  const lines = bodyText.split('\n');
  const read = outline(lines);
  let start = 0;
  let end = lines.length;
  let depth = 0;
  for (const [k, label] of labels.entries()) {
    let found = -1;
    for (let i = start; i < end && found < 0; i++) {
      const at = read[i]!.findIndex((o) => o.label === label && o.depth === depth + 1);
      // A child starts its own line; on the parent's line it follows the parent's label ("(a)(1) …").
      if (at === 0 || (at > 0 && i === start && k > 0)) found = i;
    }
    if (found < 0) return null;
    depth++;
    let stop = found + 1;
    while (stop < end) {
      const first = read[stop]![0];
      if (first && first.depth <= depth) break;
      stop++;
    }
    start = found;
    end = stop;
  }
  return lines.slice(start, end).join('\n');
}

/** What a lookup does with the citation's pinpoint, against the body of the version it answers. */
export function applyPinpoint(bodyText: string, requested: string, citationDisplay: string): PinpointAnswer {
  const labels = pinpointLabels(requested);
  const base = { requested };
  if (!labels) {
    return {
      ...base,
      applied: false,
      display: null,
      text: null,
      reason: `'${requested}' is not a run of subdivision labels such as (a)(7)(B): the whole section is answered.`,
    };
  }
  const pin = labels.map((l) => `(${l})`).join('');
  const text = findSubdivision(bodyText, labels);
  if (text === null) {
    return {
      ...base,
      applied: false,
      display: null,
      text: null,
      reason: `This version's text has no subdivision ${pin}: the whole section is answered.`,
    };
  }
  return { ...base, applied: true, display: `${citationDisplay}${pin}`, text, reason: null };
}

/** The sentence the answer's `note` gains for a pinpoint. */
export function pinpointNote(p: PinpointAnswer): string {
  return p.applied
    ? `Pinpoint ${p.requested.trim()} applied: pinpoint.text is that subdivision of this version; bodyText is the whole section.`
    : `Pinpoint ${p.requested.trim()} not applied: ${p.reason}`;
}
