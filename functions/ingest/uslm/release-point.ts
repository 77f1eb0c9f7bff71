import { basename } from 'node:path';
import { titleCode } from '../olrc/titles.ts';
import { OLRC_SOURCE, titleZipUrl } from '../olrc/urls.ts';

/**
 * Where a title file comes from at the publisher: OLRC names each title at each release point
 * `xml_usc<TT>@<congress>-<law>.zip` (`xml_usc01@113-31.zip`, `xml_usc05a@117-80.zip`, `xml_usc26@114-329not328.zip`)
 * and serves it at `https://uscode.house.gov/download/releasepoints/us/pl/<congress>/<law>/<that name>`.
 */
export interface TitleOrigin {
  /** OLRC's name of the title in file names: `01`, `05A`, `11a`. */
  titleFile: string;
  /** The release point as OLRC writes it (`113-31`, `114-329not328`), when the file tells it. */
  releasePoint?: string;
}

const RELEASE_POINT = String.raw`\d+-\d+[0-9a-z]*`;
const ZIP_NAME = new RegExp(String.raw`^xml_usc(\d+[a-z]?)@(${RELEASE_POINT})\.zip$`, 'i');
const PUBLICATION = new RegExp(`^Online@(${RELEASE_POINT})$`, 'i');

/** A title as keys write it, from OLRC's file name of it: `05A` is `5a`. */
export const titleOfFileName = (titleFile: string): string => titleFile.replace(/^0+(?=\d)/, '').toLowerCase();

/** OLRC's file name of a title: `1` is `01`; the appendices to Titles 5 and 50 are `05A`, `50A`, the others `11a`, `18a`, `28a`. */
export function fileNameOfTitle(title: string): string {
  const m = /^(\d+)([a-z]?)$/.exec(title);
  if (!m) return title;
  const number = m[1]!.padStart(2, '0');
  return m[2] ? `${number}${number === '05' || number === '50' ? 'A' : 'a'}` : number;
}

/**
 * The origin of `file`: a zip's own name (OLRC's) gives the title and the release point; a bare XML file gives its
 * release point in `<docPublicationName>` (`Online@113-31`). A zip named for another title than its `<meta>` is refused.
 */
export function originOf(file: string, title: string, publicationName: string): TitleOrigin {
  const zip = ZIP_NAME.exec(basename(file));
  if (zip) {
    if (titleOfFileName(zip[1]!) !== title) {
      throw new Error(`${file}: the zip is named for title ${titleOfFileName(zip[1]!)} but holds title ${title}`);
    }
    return { titleFile: zip[1]!, releasePoint: zip[2]!.toLowerCase() };
  }
  const rp = PUBLICATION.exec(publicationName)?.[1];
  return { titleFile: fileNameOfTitle(title), ...(rp && { releasePoint: rp.toLowerCase() }) };
}

/** OLRC's download address of a title at a release point (the fetch connector's scheme: appendix titles in lower case, `05a`). */
export function olrcZipUrl(origin: Required<TitleOrigin>, source: string = OLRC_SOURCE): string {
  const [congress, law] = origin.releasePoint.split(/-(.*)/s) as [string, string];
  return titleZipUrl(source, { id: origin.releasePoint, congress: Number(congress), law }, titleCode(origin.titleFile));
}
