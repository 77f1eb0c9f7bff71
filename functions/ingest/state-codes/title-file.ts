import { createReadStream } from 'node:fs';
import { collectionById } from '#law/collections.ts';
import type { SkippedSection } from '#law/ports.ts';
import type { SourceDocument, SourceEdition } from '../source.ts';
import { publisherFileUrl, type StateCodeFormat, titleFileOf } from './formats.ts';
import { type ReleaseLine, type TitleEvent, TitleHtmlReader } from './title-html.ts';

/** Thrown when a file is not a title file of the state it is read for (nothing of it is ingested). */
export class TitleFileError extends Error {}

/** A title file's events as it streams from disk (64 KiB at a time). Breaking off closes the file. */
async function* titleEvents(format: StateCodeFormat, file: string, title: string): AsyncGenerator<TitleEvent> {
  const reader = new TitleHtmlReader(format, collectionById(format.collection), title);
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 })) {
    reader.write(chunk as string);
    yield* reader.take();
  }
  reader.end();
  yield* reader.take();
}

/** The release line, read from the head of the file (the rest is not read). */
async function releaseOf(format: StateCodeFormat, file: string, title: string): Promise<ReleaseLine> {
  for await (const event of titleEvents(format, file, title)) {
    if (event.kind === 'release') return event.release;
    if (event.kind === 'section') break;
  }
  throw new TitleFileError(`${file}: no release line ("Release NN of the … released YYYY-MM-DD") before the first section`);
}

/**
 * One title file as one compiled edition of the state's code: dated by the release date the file states, labelled
 * with the publisher's release (`r76`), speaking for the whole title (a section of the title it does not show ends
 * there), with the publisher's file at the commit read as its source address.
 */
export async function readStateTitleFile(format: StateCodeFormat, file: string, retrievedAt: string): Promise<SourceEdition> {
  const named = titleFileOf(format, file);
  if (!named) {
    throw new TitleFileError(
      `${file}: not a ${format.state} title file (the publisher names them gov.${format.state}.${format.code}.title.NN.html)`,
    );
  }
  const title = String(Number.parseInt(named.title, 10)) + named.title.replace(/^\d+/, '');
  const release = await releaseOf(format, file, title);
  if (named.release !== null && named.release !== release.release) {
    throw new TitleFileError(`${file}: the file states release ${release.release} but lies in the folder of release ${named.release}`);
  }
  const listed = format.releases.find((r) => r.release === release.release);
  if (listed && listed.date !== release.date) {
    throw new TitleFileError(
      `${file}: release ${release.release} is dated ${release.date} in the file but ${listed.date} in the ${format.state} configuration`,
    );
  }
  let skipped: SkippedSection[] = [];
  async function* documents(): AsyncGenerator<SourceDocument> {
    const reading: SkippedSection[] = [];
    for await (const event of titleEvents(format, file, title)) {
      if (event.kind === 'section') yield event.doc;
      else if (event.kind === 'skipped') reading.push(event.skipped);
    }
    skipped = reading;
  }
  return {
    collection: format.collection,
    date: release.date,
    label: `r${release.release}`,
    temporalBasis: 'compiled-edition',
    retrievedAt,
    scope: { kind: 'prefix', prefix: `${title}-` },
    source: file,
    sourceUrl: publisherFileUrl(format, release.release, named.title),
    documents: { [Symbol.asyncIterator]: documents },
    skipped: () => skipped,
  };
}
