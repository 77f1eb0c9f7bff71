/**
 * Where the Council's repository keeps the D.C. Code's sections, and the citation key a section file stands for.
 * The file name is the key the Council publishes the section at (code.dccouncil.gov/…/sections/<name>), written
 * for a file system: `28~1-101` for the UCC's `28:1-101`, `[47-1099.13]` for a section number not yet codified (the
 * same section later loses its brackets by a rename; the two never coexist), and once an en dash (`31–3302.06a`).
 */
export const CODE_TITLES_PATH = 'us/dc/council/code/titles';
export const SECTIONS_FOLDER = 'sections';

/** The citation key of a section file name (`22-404.05.xml`), or null for what is not a section (images, indexes). */
export function sectionKeyOfFile(fileName: string): string | null {
  if (!fileName.endsWith('.xml')) return null;
  const key = fileName
    .slice(0, -'.xml'.length)
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/~/g, ':')
    .replace(/^\[(.*)\]$/, '$1');
  return key || null;
}
