/**
 * Sentences from real opinions, one or more for each form of full case citation the extractor reads beyond
 * `volume reporter page`, with the full case citations a reader finds in them (in text order, as printed). Copied
 * byte for byte from CourtListener's text of the opinion (`html_with_citations` with the tags taken out; the records
 * of /work/shared/data/caselaw, softpot9/courtlistener-bulkdata, 2017–2018 pulls) or from the court's own page where
 * named. Only the development half of those records was searched for them (see bench/citations.ts on the held-out
 * half). The unit tests check every case; the benchmark reports accuracy and throughput per form on them.
 */

export interface RealFormCase {
  form: string;
  /** Where the sentence is from. */
  source: string;
  text: string;
  /** The full case citations in it, as printed, in order. */
  full: string[];
}

const cl = (id: number, name: string) => `CourtListener opinion ${id}, ${name}`;

export const REAL_FORM_CASES: readonly RealFormCase[] = [
  {
    form: 'placeholder page and volume',
    source: cl(1840943, 'Matter of Fink (Bankr. D. Neb. 1993)'),
    text: 'In Patterson v. Shumate, ___ U.S. ___, 112 S. Ct. 2242, 119 L. Ed. 2d 519 (1992), the Supreme Court held that an Erisa-qualified retirement plan was excluded from the estate',
    full: ['___ U.S. ___', '112 S. Ct. 2242', '119 L. Ed. 2d 519'],
  },
  {
    form: 'placeholder page and volume',
    source: cl(4099433, 'Matter of Shiner v. SUNY at Buffalo (N.Y. App. Div. 2016)'),
    text: '(Ronkese v\nTilcon N.Y., Inc., 129 AD3d 1273, 1275 [2015], lv dismissed ___\nNY3d ___ [Nov. 1, 2016], quoting Matter of Beth V. v New York\nState Off. of Children & Family Servs., 22 NY3d at 91).',
    full: ['129 AD3d 1273', '___\nNY3d ___'],
  },
  {
    form: 'bracketed parallel after a placeholder, year before the citation',
    source: cl(2653660, 'Brown v. Beverly Hills Surgery Center (Cal. Ct. App. 2014)'),
    text: 'arbitration (St. Agnes, supra, 31 Cal.4th at p. 1204; AT&T Mobility LLC v. Concepcion\n(2011) 563 U.S. ___ [131 S. Ct. 1740, 1745, 179 L. Ed. 2d 742]), similarly acknowledges\nthe right to arbitrate may be forfeited',
    full: ['563 U.S. ___', '131 S. Ct. 1740', '179 L. Ed. 2d 742'],
  },
  {
    form: 'reporter printed with spaces',
    source: 'In re Winship, 397 U.S. 358, 360 (1970), as CourtListener prints it',
    text: 'The Appellate Division of the New York Supreme Court, First Judicial Department, affirmed without opinion, 30 App. Div. 2d 781, 291 N. Y. S. 2d 1005 (1968).',
    full: ['30 App. Div. 2d 781', '291 N. Y. S. 2d 1005'],
  },
  {
    form: 'reporter printed with spaces',
    source: cl(105427, 'Putnam v. Commissioner, 352 U.S. 82 (1956)'),
    text: 'Gimbel v. Commissioner, 36 B. T. A. 539; Roberts v. Commissioner, 36 B. T. A. 549; Sharp v. Commissioner, 38 B. T. A. 166;',
    full: ['36 B. T. A. 539', '36 B. T. A. 549', '38 B. T. A. 166'],
  },
  {
    form: 'Tax Court memorandum (reporter, year-number)',
    source: 'Shuman v. Commissioner, T.C. Memo. 2018-135, the opinion’s own caption (ecases.us/case/tax/c593865)',
    text: 'T.C. Memo. 2018-135\n    UNITED STATES TAX COURT\n    LOUIS S. SHUMAN AND SANDRA SHUMAN, Petitioners v.',
    full: ['T.C. Memo. 2018-135'],
  },
  {
    form: 'CCH paragraph cite',
    source: cl(269303, 'Skolski v. Commissioner, 351 F.2d 485 (3d Cir. 1965), the record’s caption'),
    text: '351 F.2d 485\n    65-2 USTC  P 9703\n    Anthony P. SKOLSKI and Kathryne D. Skolski, Petitioners,',
    full: ['351 F.2d 485', '65-2 USTC  P 9703'],
  },
  {
    form: 'CCH paragraph cite',
    source: 'Phillips v. Commissioner, 851 F.2d 1492 (D.C. Cir. 1988), the opinion’s caption (ecases.us/case/p508929)',
    text: '    57 USLW 2079, 88-2 USTC P 9431\n',
    full: ['57 USLW 2079', '88-2 USTC P 9431'],
  },
  {
    // A docket number with its pin inside is not read (issue 29): reporters-db's pattern has no pin there, and neither
    // eyecite nor CourtListener's markup of this opinion reads it; `2009-1359 (La.App. 1 Cir. 5/10/10)` still is.
    form: 'Louisiana docket number with a pin inside: not read',
    source: cl(1734973, 'Ewing v. State ex rel. Dept. of Transp. (La. Ct. App. 2000)'),
    text: 'to establish that no genuine issue of material fact remains at issue." Mouton v. Sears Roebuck, 99-669, p. 2 (La.App. 3 Cir. 11/3/99); 748 So. 2d 61, 65, quoting',
    full: ['748 So. 2d 61'],
  },
  {
    form: 'Illinois public-domain cite',
    source: 'Township of Jubilee v. State of Illinois, 2011 IL 111447, the opinion’s caption (ecases.us/case/ill/c8550090)',
    text: 'Township of Jubilee v. State of Illinois, \n    2011 IL 111447\n    Caption in Supreme',
    full: ['2011 IL 111447'],
  },
  {
    form: 'page with a suffix taken whole',
    source: '1125 Morris Ave. Realty LLC v Title Issues Agency LLC, the New York Official Reports page of the decision',
    text: '<td align="center">2023 NY Slip Op 51345(U) [81 Misc 3d 1215(A)]</td>',
    full: ['2023 NY Slip Op 51345(U)', '81 Misc 3d 1215(A)'],
  },
  {
    form: 'year before the citation',
    source: cl(2282388, 'Alcott Rehabilitation Hosp. v. Superior Court (Cal. Ct. App. 2001)'),
    text: 'and Russell v. Stanford University Hospital (1997) 15 Cal. 4th 783, 790, 64 Cal. Rptr. 2d 97, 937 P.2d 640.)',
    full: ['15 Cal. 4th 783', '64 Cal. Rptr. 2d 97', '937 P.2d 640'],
  },
  {
    form: 'year in square brackets',
    source: cl(2131517, 'Harley v. Oliver (W.D. Ark. 1975)'),
    text: 'Cf. Hall v. Garson (5 CCA 1970) 430 F.2d 430, at 439 [1970]\n"Assuming all the well pleaded facts',
    full: ['430 F.2d 430'],
  },
  {
    form: 'short cite with at p., comma before at',
    source: `${cl(2282388, 'Alcott Rehabilitation Hosp. v. Superior Court (Cal. Ct. App. 2001)')}; ${cl(105427, 'Putnam v. Commissioner (1956)')}`,
    text: '(Belton, supra, 20 Cal.4th at p. 930, 86 Cal. Rptr. 2d 107, 978 P.2d 591.) … "cannot be taken to include a case of that kind." 283 U. S., at 141.',
    full: ['86 Cal. Rptr. 2d 107', '978 P.2d 591'],
  },
  {
    form: 'bracketed cite after a comma or a party',
    source: `${cl(3283465, 'Keeley v. Superior Court (Cal. Ct. App. 1914)')}; ${cl(250490, 'Powell v. St. Louis Dairy Co. (8th Cir. 1960)')}`,
    text: 'In Imperial Land Co. v.Imperial Irrigation District, 166 Cal. 491, [137 P. 234] this court suggested two methods; Fitzmaurice v. Turney [256 Mo. 181], 165 S.W. 307 (involving penalty',
    full: ['166 Cal. 491', '137 P. 234', '256 Mo. 181', '165 S.W. 307'],
  },
  {
    form: 'eight-digit Westlaw number, page glued to a heading',
    source: `${cl(2452357, 'New York v. Microsoft Corp. (D.D.C. 2002)')}; ${cl(694916, 'Malilay v. INS (9th Cir. 1995)')}`,
    text: 'United States v. Microsoft, No. 98-1232, 2002 WL 31439450 (D.D.C. Nov. 1, 2002), appended hereto.\n53 F.3d 339NOTICE: Ninth Circuit Rule 36-3 provides',
    full: ['2002 WL 31439450', '53 F.3d 339'],
  },
];
