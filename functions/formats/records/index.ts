/* The authored filing-format records (README.md in this folder). Every .json file here is listed (a test checks it). */
import type { AuthoredFile } from '../authored.ts';
import r__frap_2007_01_03 from './_frap-2007-01-03.json' with { type: 'json' };
import r__frap_2010_02_01 from './_frap-2010-02-01.json' with { type: 'json' };
import r__frap_2011_01_07 from './_frap-2011-01-07.json' with { type: 'json' };
import r__frap_2012_01_03 from './_frap-2012-01-03.json' with { type: 'json' };
import r__frap_2024_12_01 from './_frap-2024-12-01.json' with { type: 'json' };
import r_ca1 from './ca1.json' with { type: 'json' };
import r_ca2 from './ca2.json' with { type: 'json' };
import r_ca3 from './ca3.json' with { type: 'json' };
import r_ca4 from './ca4.json' with { type: 'json' };
import r_ca5 from './ca5.json' with { type: 'json' };
import r_ca6 from './ca6.json' with { type: 'json' };
import r_ca7 from './ca7.json' with { type: 'json' };
import r_ca8 from './ca8.json' with { type: 'json' };
import r_ca9 from './ca9.json' with { type: 'json' };
import r_ca10 from './ca10.json' with { type: 'json' };
import r_ca11 from './ca11.json' with { type: 'json' };
import r_cadc from './cadc.json' with { type: 'json' };
import r_cafc from './cafc.json' with { type: 'json' };
import r_nd_2026_03_07 from './nd-2026-03-07.json' with { type: 'json' };

export const BUNDLED_RECORD_FILES: readonly AuthoredFile[] = [
  { file: '_frap-2007-01-03.json', content: r__frap_2007_01_03 },
  { file: '_frap-2010-02-01.json', content: r__frap_2010_02_01 },
  { file: '_frap-2011-01-07.json', content: r__frap_2011_01_07 },
  { file: '_frap-2012-01-03.json', content: r__frap_2012_01_03 },
  { file: '_frap-2024-12-01.json', content: r__frap_2024_12_01 },
  { file: 'ca1.json', content: r_ca1 },
  { file: 'ca10.json', content: r_ca10 },
  { file: 'ca11.json', content: r_ca11 },
  { file: 'ca2.json', content: r_ca2 },
  { file: 'ca3.json', content: r_ca3 },
  { file: 'ca4.json', content: r_ca4 },
  { file: 'ca5.json', content: r_ca5 },
  { file: 'ca6.json', content: r_ca6 },
  { file: 'ca7.json', content: r_ca7 },
  { file: 'ca8.json', content: r_ca8 },
  { file: 'ca9.json', content: r_ca9 },
  { file: 'cadc.json', content: r_cadc },
  { file: 'cafc.json', content: r_cafc },
  { file: 'nd-2026-03-07.json', content: r_nd_2026_03_07 },
];
