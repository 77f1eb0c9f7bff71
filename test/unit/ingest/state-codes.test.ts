import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STATE_CODE_FORMATS, stateCodeFormat, titleFileOf, titleFilePath } from '#ingest/state-codes/formats.ts';
import { effectiveMarker, headingKeys, parseReleaseLine, type TitleEvent, TitleHtmlReader } from '#ingest/state-codes/title-html.ts';
import { collectionById } from '#law/collections.ts';

const STATES = fileURLToPath(new URL('../../../data/states/', import.meta.url));

/** Every event of one real title file, fed to the reader in pieces of `chunk` characters. */
async function eventsOf(state: string, release: number, title: string, chunk = 4096): Promise<TitleEvent[]> {
  const format = stateCodeFormat(state);
  const html = await readFile(join(STATES, titleFilePath(format, release, title)), 'utf8');
  const reader = new TitleHtmlReader(format, collectionById(format.collection), String(Number(title)));
  const events: TitleEvent[] = [];
  for (let i = 0; i < html.length; i += chunk) {
    reader.write(html.slice(i, i + chunk));
    events.push(...reader.take());
  }
  reader.end();
  return [...events, ...reader.take()];
}

describe('state-code title files: the reader', () => {
  it('reads the release line as each release writes it', () => {
    expect(
      parseReleaseLine(
        'Release 76 of the Official Code of Tennessee Annotated released 2021.05.21. Transformed and posted by Public.Resource.Org',
      ),
    ).toEqual({ release: 76, date: '2021-05-21', codeName: 'Official Code of Tennessee Annotated' });
    expect(parseReleaseLine('Release 72 of the Official Code of Mississippi Annotated released 2018-12-13.')?.date).toBe('2018-12-13');
    expect(parseReleaseLine('Transformed and posted by Public.Resource.Org')).toBeNull();
  });

  it('reads the keys a heading names: one, a list, a run, en dashes', () => {
    const tn = collectionById('tn-code');
    const ms = collectionById('ms-code');
    expect(headingKeys(tn, '1-3-113.1')).toEqual(['1-3-113.1']);
    expect(headingKeys(tn, '31-6-117, 31-6-118')).toEqual(['31-6-117', '31-6-118']);
    expect(headingKeys(tn, '31-3-108 — 31-3-119')).toEqual(['31-3-108-to-31-3-119']);
    expect(headingKeys(ms, '1-1-1 through 1-1-6')).toEqual(['1-1-1-to-1-1-6']);
    expect(headingKeys(ms, '5-3-75, 5–3–77')).toEqual(['5-3-75', '5-3-77']);
    expect(headingKeys(ms, '5-3')).toBeNull();
  });

  it('reads the effective-date marker of a catchline and leaves the catchline without it', () => {
    expect(effectiveMarker('Limitation of liability [Effective until July 1, 2019].')).toEqual({
      catchline: 'Limitation of liability',
      until: true,
      date: '2019-07-01',
      printed: 'Effective until July 1, 2019',
    });
    expect(effectiveMarker('Restrictions. [Effective on January 1, 2021. See version effective until December 30, 2020.]')).toMatchObject({
      catchline: 'Restrictions.',
      until: false,
      date: '2021-01-01',
    });
    expect(effectiveMarker('Repeals not retroactive.')).toBeNull();
  });

  it('reads the same sections however the file is cut into pieces', async () => {
    const whole = await eventsOf('tn', 72, '31', 10_000_000);
    const small = await eventsOf('tn', 72, '31', 97);
    expect(small).toEqual(whole);
    expect(whole.filter((e) => e.kind === 'section')).toHaveLength(76);
  });

  it('names each title as the files head it, release by release', async () => {
    for (const format of Object.values(STATE_CODE_FORMATS)) {
      const collection = collectionById(format.collection);
      for (const { release } of format.releases) {
        for (const title of format.defaultTitles) {
          const heading = (await eventsOf(format.state, release, title)).find((e) => e.kind === 'title');
          const name = collection.titleName?.(String(Number(title)));
          expect(heading && heading.kind === 'title' && heading.heading, `${format.state} r${release} ${title}`).toMatch(
            new RegExp(`^Title ${Number(title)}\\.? ${name}$`, 'i'),
          );
        }
      }
    }
  });

  it('knows the file names of the layout, and only those', async () => {
    const tn = stateCodeFormat('tn');
    expect(titleFileOf(tn, '/x/transforms/tn/octn/r72/gov.tn.tca.title.01.html')).toEqual({ release: 72, title: '01' });
    expect(titleFileOf(tn, 'gov.tn.tca.title.31.html')).toEqual({ release: null, title: '31' });
    expect(titleFileOf(tn, 'gov.ms.code.title.01.html')).toBeNull();
    const files = await readdir(join(STATES, 'transforms/ms/ocms/r75'));
    expect(files.filter((f) => titleFileOf(stateCodeFormat('ms'), f)).sort()).toEqual(
      ['01', '03', '05', '87', '95'].map((t) => `gov.ms.code.title.${t}.html`),
    );
  });
});
