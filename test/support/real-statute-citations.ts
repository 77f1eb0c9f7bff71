/**
 * Sentences from real opinions that cite statutes and court rules, copied verbatim (white space collapsed) from the
 * CourtListener REST API v3 records of `softpot9/courtlistener-bulkdata` @ 041c09f70ccbb375b3015adea1e8a39da12dcbd0 :
 * `result/<id>.json` (text of `html_with_citations` / `Case_Text`, HTML entities decoded), as retrieved on 2026-11-23
 * (data/sample/PROVENANCE.md). `id` is the record's.
 * Opinions are US court works, public domain.
 */
export interface RealStatuteSentence {
  id: string;
  form: string;
  text: string;
  /** The citations a reader finds in it: as printed, and the key (null: a code not carried) and jurisdiction. */
  expected: Array<{ printed: string; jurisdiction: string; key: string | null; pinpoint?: string }>;
}

export const REAL_STATUTE_SENTENCES: readonly RealStatuteSentence[] = [
  {
    id: '931093',
    form: 'title U.S.C. § section',
    text: 'We have jurisdiction under 28 U.S.C. § 1291, and we affirm.',
    expected: [{ printed: '28 U.S.C. § 1291', jurisdiction: 'us', key: '28-1291' }],
  },
  {
    id: '266505',
    form: 'title U.S.C. section (no §)',
    text: 'The district court had jurisdiction of the action under 301(a) of the Taft-Hartley Act, 29 U.S.C. 185(a);',
    expected: [{ printed: '29 U.S.C. 185(a)', jurisdiction: 'us', key: '29-185', pinpoint: '(a)' }],
  },
  {
    id: '1239324',
    form: 'title U.S.C. section (no §)',
    text: 'after a federal statute commonly known by that name. (71 Stat. 595, 18 U.S.C. 3500.) In pertinent part the statute provides',
    expected: [{ printed: '18 U.S.C. 3500', jurisdiction: 'us', key: '18-3500' }],
  },
  {
    id: '2264441',
    form: '§§ range',
    text: "I conclude that he is unable to challenge Maine's policy under the Americans with Disabilities Act of 1990, 42 U.S.C. §§ 12101-12213.",
    expected: [
      { printed: '42 U.S.C. §§ 12101', jurisdiction: 'us', key: '42-12101' },
      { printed: '12213', jurisdiction: 'us', key: '42-12213' },
    ],
  },
  {
    id: '2651323',
    form: '§§ list',
    text: 'plaintiffs have the ability to bring a claim against the Government. 28 U.S.C. §§ 1491, 2501. III. The Mandate Rule',
    expected: [
      { printed: '28 U.S.C. §§ 1491', jurisdiction: 'us', key: '28-1491' },
      { printed: '2501', jurisdiction: 'us', key: '28-2501' },
    ],
  },
  {
    id: '2131517',
    form: 'section N of title N',
    text: 'The second basis upon which jurisdiction is claimed is Section 1343 of Title 28, United States Code, commonly known as the Civil Rights Act',
    expected: [{ printed: 'Section 1343 of Title 28, United States Code', jurisdiction: 'us', key: '28-1343' }],
  },
  {
    id: '250490',
    form: 'section N of title N',
    text: 'imposed by the predecessor of section 2462 of title 28, United States Code, was not applicable to such a suit.',
    expected: [{ printed: 'section 2462 of title 28, United States Code', jurisdiction: 'us', key: '28-2462' }],
  },
  {
    id: '4161180',
    form: 'Fed. R. App. P.',
    text: 'See Fed. R. App. P. 34(a)(2).',
    expected: [{ printed: 'Fed. R. App. P. 34(a)(2)', jurisdiction: 'us', key: 'frap-34', pinpoint: '(a)(2)' }],
  },
  {
    id: '1083325',
    form: 'Tenn. Code Ann. §',
    text: 'deals in the areas that American Bankers deals in must have $200,000 of surety on deposit. Tenn. Code Ann. § 56-2-104. This money is on deposit in Florida.',
    expected: [{ printed: 'Tenn. Code Ann. § 56-2-104', jurisdiction: 'tn', key: '56-2-104' }],
  },
  {
    id: '4020978',
    form: 'Miss. Code Ann. §',
    text: 'Thomas v. State, 159 So. 3d 1212, 1214 (¶4) (Miss. Ct. App. 2015) (quoting Miss. Code Ann. § 99-39-11(2) (Rev. 2015)).',
    expected: [{ printed: 'Miss. Code Ann. § 99-39-11(2)', jurisdiction: 'ms', key: '99-39-11', pinpoint: '(2)' }],
  },
  {
    id: '2329161',
    form: 'state code without a leading number (not carried)',
    text: "Jordan and MacKay were terminated for violating the Massachusetts' Criminal Offender Records Information (CORI) statute, G.L. c. 6, § 172, and for making obscene and inappropriate comments",
    expected: [{ printed: 'G.L. c. 6, § 172', jurisdiction: 'ma', key: null }],
  },
  {
    id: '1005816',
    form: 'U.S.C.A. (an annotated edition: the Code’s key)',
    text: 'PER CURIAM: Mermann Kellam appeals the district court’s order denying relief on his 42 U.S.C.A. § 1983 (West Supp. 2000) complaint.',
    expected: [{ printed: '42 U.S.C.A. § 1983', jurisdiction: 'us', key: '42-1983' }],
  },
  {
    id: '3155592',
    form: '§ without a space',
    text: 'As a result, the Township and Borough created a danger that deprived Plaintiff of his substantive due process rights in violation of 42 U.S.C. §1983 and the Fourteenth Amendment.',
    expected: [{ printed: '42 U.S.C. §1983', jurisdiction: 'us', key: '42-1983' }],
  },
  {
    id: '1010963',
    form: 'subsections (kept out of the key)',
    text: 'A certificate of appealability will not issue for claims addressed by a district court on the merits absent “a substantial showing of the denial of a constitutional right.” 28 U.S.C. § 2253(c)(2) (2000).',
    expected: [{ printed: '28 U.S.C. § 2253(c)(2)', jurisdiction: 'us', key: '28-2253', pinpoint: '(c)(2)' }],
  },
  {
    id: '1375537',
    form: 'et seq.',
    text: 'This is an action under the Truth-in-Lending Act, 15 U.S.C. § 1601 et seq., in which plaintiff alleges that defendant National Permanent Federal Savings and Loan Association (Bank) failed',
    expected: [{ printed: '15 U.S.C. § 1601 et seq.', jurisdiction: 'us', key: '15-1601' }],
  },
  {
    id: '1626567',
    form: '§§ list, D.C.Code without a space',
    text: "If the agency Director affirms a suspension or revocation of a driver's license, the driver may seek review in the District of Columbia Court of Appeals pursuant to the District of Columbia Administrative Procedure Act. D.C.Code §§ 1-1510, 40-635.",
    expected: [
      { printed: 'D.C.Code §§ 1-1510', jurisdiction: 'dc', key: '1-1510' },
      { printed: '40-635', jurisdiction: 'dc', key: '40-635' },
    ],
  },
  {
    id: '1222718',
    form: 'state code without § (not carried)',
    text: 'Pursuant to RCW 49.60.250 and the italicized language "or to take such other action," the Legislature granted the Commission',
    expected: [{ printed: 'RCW 49.60.250', jurisdiction: 'wa', key: null }],
  },
  {
    id: '1757896',
    form: 'state code without § (not carried)',
    text: 'We believe, while the School Board may set reasonable standards for teacher activity, Policy G25.000 is inappropriate. See KRS 160.290(2) and McCoy v. Weinberger, 386 F. Supp. 504 (W.D.Ky.1974).',
    expected: [{ printed: 'KRS 160.290(2)', jurisdiction: 'ky', key: null, pinpoint: '(2)' }],
  },
  {
    id: '2082629',
    form: 'state code without § (not carried)',
    text: '(See 755 ILCS 5/1-2.11 (West 1992).)',
    expected: [{ printed: '755 ILCS 5/1-2.11', jurisdiction: 'il', key: null }],
  },
  {
    id: '2741328',
    form: '§§ list of a code not carried',
    text: 'The testimony at sentencing amply supported the court’s findings that Mavroudis committed the West Virginia offense of sexual abuse in the third degree, see W. Va. Code §§ 61-8B-1(6), 61-8B-9(a) (2013), and that the victim of this offense qualifies as a vulnerable victim',
    expected: [
      { printed: 'W. Va. Code §§ 61-8B-1(6)', jurisdiction: 'wv', key: null, pinpoint: '(6)' },
      { printed: '61-8B-9(a)', jurisdiction: 'wv', key: null, pinpoint: '(a)' },
    ],
  },
  {
    id: '2842205',
    form: '§§ list of a code not carried',
    text: 'See Tex. Penal Code Ann. §§ 29.02, 29.03 (Vernon 2003).',
    expected: [
      { printed: 'Tex. Penal Code Ann. §§ 29.02', jurisdiction: 'tx', key: null },
      { printed: '29.03', jurisdiction: 'tx', key: null },
    ],
  },
];
