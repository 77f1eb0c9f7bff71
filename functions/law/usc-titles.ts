/**
 * The titles of the United States Code and the headings OLRC prints for them in its current release points. A lookup
 * in a title that is not carried can name it only from here, and coverage names the titles it carries from here: a
 * USLM file states its title's heading, but the stored histories and edition records coverage is computed from do not
 * keep it. test/unit/law/usc-titles.test.ts holds this table to the heading of every title file the repo carries.
 *
 * Names are today's: a title renamed since an older release point is named as it is now (Title 34 was "Navy" until
 * 1956 and is "Crime Control and Law Enforcement" from 2017; Title 53 is reserved).
 */
const USC_TITLE_NAMES: Readonly<Record<string, string>> = {
  '1': 'General Provisions',
  '2': 'The Congress',
  '3': 'The President',
  '4': 'Flag and Seal, Seat of Government, and the States',
  '5': 'Government Organization and Employees',
  '6': 'Domestic Security',
  '7': 'Agriculture',
  '8': 'Aliens and Nationality',
  '9': 'Arbitration',
  '10': 'Armed Forces',
  '11': 'Bankruptcy',
  '12': 'Banks and Banking',
  '13': 'Census',
  '14': 'Coast Guard',
  '15': 'Commerce and Trade',
  '16': 'Conservation',
  '17': 'Copyrights',
  '18': 'Crimes and Criminal Procedure',
  '19': 'Customs Duties',
  '20': 'Education',
  '21': 'Food and Drugs',
  '22': 'Foreign Relations and Intercourse',
  '23': 'Highways',
  '24': 'Hospitals and Asylums',
  '25': 'Indians',
  '26': 'Internal Revenue Code',
  '27': 'Intoxicating Liquors',
  '28': 'Judiciary and Judicial Procedure',
  '29': 'Labor',
  '30': 'Mineral Lands and Mining',
  '31': 'Money and Finance',
  '32': 'National Guard',
  '33': 'Navigation and Navigable Waters',
  '34': 'Crime Control and Law Enforcement',
  '35': 'Patents',
  '36': 'Patriotic and National Observances, Ceremonies, and Organizations',
  '37': 'Pay and Allowances of the Uniformed Services',
  '38': "Veterans' Benefits",
  '39': 'Postal Service',
  '40': 'Public Buildings, Property, and Works',
  '41': 'Public Contracts',
  '42': 'The Public Health and Welfare',
  '43': 'Public Lands',
  '44': 'Public Printing and Documents',
  '45': 'Railroads',
  '46': 'Shipping',
  '47': 'Telecommunications',
  '48': 'Territories and Insular Possessions',
  '49': 'Transportation',
  '50': 'War and National Defense',
  '51': 'National and Commercial Space Programs',
  '52': 'Voting and Elections',
  '54': 'National Park Service and Related Programs',
};

const APPENDIX = /^(\d+)a$/;

/**
 * A title's name: its heading ("Judiciary and Judicial Procedure"); for an appendix title (`5a`, `11a`, `18a`,
 * `28a`), which has no heading of its own, the name its file gives (`Title 5 Appendix`). Undefined for a title number
 * the Code does not have (53 is reserved).
 */
export function uscTitleName(title: string): string | undefined {
  const appendix = APPENDIX.exec(title);
  if (appendix) return USC_TITLE_NAMES[appendix[1]!] === undefined ? undefined : `Title ${appendix[1]} Appendix`;
  return USC_TITLE_NAMES[title];
}
