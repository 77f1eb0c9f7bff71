/**
 * US Code titles as the Office of the Law Revision Counsel (OLRC) names them in its download file names: two digits,
 * and `a` for an appendix title (`01`, `05a`, `11a`). The publisher's own spellings disagree: the zip is
 * `xml_usc05a@…zip` while the file inside is `usc05A.xml` (`11a`, `18a`, `28a` stay lower case inside too), so a
 * code is compared without regard to case and written lower case in URLs.
 */

/** Titles 1 to 54 (53 is reserved: the publisher lists it and serves nothing). */
const LAST_TITLE = 54;
/** The titles that have (or had: 50a was eliminated in 2015 and is still served) an appendix title. */
const APPENDICES: ReadonlySet<number> = new Set([5, 11, 18, 28, 50]);

export class TitleCodeError extends Error {}

/** `1`, `01`, `5a`, `05A` → `01`, `05a`; anything that is not a US Code title or appendix title is refused. */
export function titleCode(input: string): string {
  const m = /^0*(\d{1,2})([aA]?)$/.exec(input.trim());
  const n = m ? Number(m[1]) : Number.NaN;
  if (!m || n < 1 || n > LAST_TITLE) {
    throw new TitleCodeError(`'${input}' is not a US Code title (1 to ${LAST_TITLE}, or an appendix title such as 5a, 11a, 18a)`);
  }
  const appendix = m[2] !== '';
  if (appendix && !APPENDICES.has(n)) {
    throw new TitleCodeError(`title ${n} has no appendix title (appendix titles: ${[...APPENDICES].map((t) => `${t}a`).join(', ')})`);
  }
  return `${String(n).padStart(2, '0')}${appendix ? 'a' : ''}`;
}

/** `01` → `1`, `05a` → `5a`: how a user (and `--titles`) writes a title. */
export const titleName = (code: string): string => code.replace(/^0/, '');

/** The one file a title's zip holds: `usc01.xml`, `usc05A.xml` (matched without regard to case). */
export const titleEntryPattern = (code: string): RegExp => new RegExp(`^usc${code}\\.xml$`, 'i');
