/* The authored filing-format records (README.md in this folder). Every .json file here is listed (a test checks it). */
import type { AuthoredFile } from '../authored.ts';
import r__frap_2024_12_01 from './_frap-2024-12-01.json' with { type: 'json' };
import r_ca1_2024_12_01 from './ca1-2024-12-01.json' with { type: 'json' };
import r_ca2_2024_12_01 from './ca2-2024-12-01.json' with { type: 'json' };
import r_ca3_2024_12_01 from './ca3-2024-12-01.json' with { type: 'json' };
import r_ca4_2024_12_01 from './ca4-2024-12-01.json' with { type: 'json' };
import r_ca5_2024_12_01 from './ca5-2024-12-01.json' with { type: 'json' };
import r_ca6_2024_12_01 from './ca6-2024-12-01.json' with { type: 'json' };
import r_ca7_2024_12_01 from './ca7-2024-12-01.json' with { type: 'json' };
import r_ca8_2024_12_01 from './ca8-2024-12-01.json' with { type: 'json' };
import r_ca9_2024_12_01 from './ca9-2024-12-01.json' with { type: 'json' };
import r_ca10_2024_12_01 from './ca10-2024-12-01.json' with { type: 'json' };
import r_ca11_2024_12_01 from './ca11-2024-12-01.json' with { type: 'json' };
import r_cadc_2024_12_01 from './cadc-2024-12-01.json' with { type: 'json' };
import r_cafc_2024_12_01 from './cafc-2024-12-01.json' with { type: 'json' };
import r_nd_2026_03_07 from './nd-2026-03-07.json' with { type: 'json' };

export const BUNDLED_RECORD_FILES: readonly AuthoredFile[] = [
  { file: '_frap-2024-12-01.json', content: r__frap_2024_12_01 },
  { file: 'ca1-2024-12-01.json', content: r_ca1_2024_12_01 },
  { file: 'ca10-2024-12-01.json', content: r_ca10_2024_12_01 },
  { file: 'ca11-2024-12-01.json', content: r_ca11_2024_12_01 },
  { file: 'ca2-2024-12-01.json', content: r_ca2_2024_12_01 },
  { file: 'ca3-2024-12-01.json', content: r_ca3_2024_12_01 },
  { file: 'ca4-2024-12-01.json', content: r_ca4_2024_12_01 },
  { file: 'ca5-2024-12-01.json', content: r_ca5_2024_12_01 },
  { file: 'ca6-2024-12-01.json', content: r_ca6_2024_12_01 },
  { file: 'ca7-2024-12-01.json', content: r_ca7_2024_12_01 },
  { file: 'ca8-2024-12-01.json', content: r_ca8_2024_12_01 },
  { file: 'ca9-2024-12-01.json', content: r_ca9_2024_12_01 },
  { file: 'cadc-2024-12-01.json', content: r_cadc_2024_12_01 },
  { file: 'cafc-2024-12-01.json', content: r_cafc_2024_12_01 },
  { file: 'nd-2026-03-07.json', content: r_nd_2026_03_07 },
];
