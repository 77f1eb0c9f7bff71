/**
 * The outline of a section's text: how deep each line sits, read from the designation it begins with. A stored text
 * holds one paragraph a line, each subdivision opening with its designation, `(a)`, `(1)`, `(A)`, `(i)`, `(I)`,
 * `(aa)`, in the order the US Code, the D.C. Code and the court rules nest them; the first designation of a line
 * places it (`(a)(1) …` is a subsection that opens with its first paragraph). A designation of a kind met before is a
 * sibling at that depth (the deeper ones end); a new kind is one deeper. `(i)`, `(v)`, `(x)` are a letter when they
 * follow the letter before them at a letter's depth (and not a subparagraph's line), and a roman numeral otherwise.
 * A bullet (`•`) is one deeper than the subdivision above it; any other line without a designation continues it.
 */

type Kind = 'lower' | 'digit' | 'upper' | 'roman' | 'upperRoman' | 'doubleLower' | 'doubleUpper';

const DESIGNATION = /^\(([0-9]+[a-z]?|[a-z]{1,2}|[A-Z]{1,2}|[ivx]+|[IVX]+)\)/;

/** The kinds a designation may be, the likelier first. */
function kindsOf(value: string): Kind[] {
  if (/^[0-9]/.test(value)) return ['digit'];
  const roman = /^[ivx]+$/.test(value) ? (['roman'] as const) : [];
  const upperRoman = /^[IVX]+$/.test(value) ? (['upperRoman'] as const) : [];
  if (/^[a-z]$/.test(value)) return [...roman, 'lower'];
  if (/^[A-Z]$/.test(value)) return [...upperRoman, 'upper'];
  if (/^([a-z])\1$/.test(value)) return [...roman, 'doubleLower'];
  if (/^([A-Z])\1$/.test(value)) return [...upperRoman, 'doubleUpper'];
  return roman.length ? [...roman] : upperRoman.length ? [...upperRoman] : [];
}

/** The letter right after `previous` (`h` → `i`, `hh` → `ii`), to tell the letter `(i)` from the numeral. */
const nextLetter = (previous: string) => String.fromCharCode(previous.charCodeAt(0) + 1).repeat(previous.length);

interface Level {
  kind: Kind;
  last: string;
}

/** Each line's depth, 0 for the outermost; `lines` as the text's own lines. */
export function outlineDepths(lines: readonly string[]): number[] {
  const open: Level[] = [];
  const at = (kind: Kind) => open.findIndex((l) => l.kind === kind);
  /** Places one designation: the depth it sits at, or null when it is none. */
  const place = (value: string): number | null => {
    const kinds = kindsOf(value);
    if (kinds.length === 0) return null;
    // An ambiguous numeral is the letter when it continues a letter sequence already open, unless it follows a
    // subparagraph `(A)`, whose subdivisions are the numerals.
    const letter = kinds.find((k) => k !== 'roman' && k !== 'upperRoman');
    const continuesLetters =
      letter !== undefined && at(letter) >= 0 && nextLetter(open[at(letter)]!.last) === value && open.at(-1)?.kind !== 'upper';
    const kind = continuesLetters ? letter! : kinds[0]!;
    const depth = at(kind);
    if (depth >= 0) open.length = depth;
    open.push({ kind, last: value });
    return open.length - 1;
  };
  return lines.map((line) => {
    let rest = line.trimStart();
    let first: number | null = null;
    // `(a)(1)(A) …`: the line sits at its first designation's depth; the others open the depths below it.
    for (let m = DESIGNATION.exec(rest); m; m = DESIGNATION.exec(rest)) {
      const depth = place(m[1]!);
      if (depth === null) break;
      first ??= depth;
      rest = rest.slice(m[0].length);
    }
    // A bullet is an item of the subdivision above it, one deeper; any other line continues it, at its depth.
    if (first === null && /^[•·●▪]/.test(rest)) return open.length;
    return first ?? Math.max(0, open.length - 1);
  });
}
