/**
 * The scheduled sources of a stage, one entry each: what a SourceSync (lib/source-sync.ts) builds for it. Adding a
 * source is an entry here (and, for a new publisher, a connector: its run's shape and its two step functions under
 * functions/lambda/jobs/); it adds no state machine file. The stage configuration (bin/stages.ts) says which of these
 * run in a stage, and when.
 */
import { Duration } from 'aws-cdk-lib';
import { titleJobsRequestSchema } from '../functions/ingest/olrc/title-jobs.ts';
import { DC_CODE_FOLDER } from '../functions/lambda/jobs/dc-code-repository.ts';
import { DC_CODE_RUN, syncRequestSchema } from '../functions/lambda/jobs/dc-code-steps.ts';
import {
  STATE_CODE_RUN,
  STATE_CODE_STATES,
  STATE_CODES_FOLDER,
  stateCodeRequestSchema,
} from '../functions/lambda/jobs/state-code-steps.ts';
import { OLRC_FOLDER } from '../functions/lambda/jobs/title-zips.ts';
import { USCODE_RUN } from '../functions/lambda/jobs/uscode-steps.ts';
import type { SourceConnector, SourceEntry } from './source-sync.ts';

/** The US Code from its publisher (OLRC): release points checked, title zips downloaded into olrc/, each ingested. */
export const USCODE_CONNECTOR: SourceConnector = {
  shape: USCODE_RUN,
  request: titleJobsRequestSchema,
  folder: OLRC_FOLDER,
  functions: {
    remote: {
      id: 'FetchFunction',
      job: 'uscode-fetch',
      description: 'US Code fetch: the publisher’s release points checked, title zips downloaded, checked and put into the sources bucket',
      memorySize: 1024,
      // A title's zip (tens of MB at most) over a bounded connection: a stalled one gives up after 60 s.
      timeout: Duration.minutes(10),
      // The zip is checked on /tmp before it is stored; the largest title's zip is well under this.
      ephemeralStorageMb: 1024,
    },
    stores: {
      id: 'IngestFunction',
      job: 'uscode-ingest',
      description: 'US Code fetch: a title zip from the sources bucket ingested into the versions table and the search index',
      memorySize: 3008,
      timeout: Duration.minutes(15),
      // The zip and its XML (a few hundred MB for the largest titles) while it is read.
      ephemeralStorageMb: 2048,
    },
  },
};

/** The D.C. Code's history from the Council's git repository: new commits into dc-code/, the publications ingested in order. */
export const DC_CODE_CONNECTOR: SourceConnector = {
  shape: DC_CODE_RUN,
  request: syncRequestSchema,
  folder: DC_CODE_FOLDER,
  functions: {
    remote: {
      id: 'SyncFunction',
      job: 'dc-code-sync',
      description:
        'D.C. Code sync: the Council’s repository fetched (what is new) into the sources bucket, its pending publications batched',
      // The first fetch holds the whole pack (about 62 MB) in memory while isomorphic-git indexes it (500 MB peak locally).
      memorySize: 2048,
      timeout: Duration.minutes(10),
      // The repository's packs and indexes (about 70 MB for the whole history).
      ephemeralStorageMb: 1024,
    },
    stores: {
      id: 'IngestFunction',
      job: 'dc-code-ingest',
      description: 'D.C. Code sync: a batch of publications from the repository in the sources bucket ingested into the stores',
      memorySize: 3008,
      timeout: Duration.minutes(15),
      ephemeralStorageMb: 1024,
    },
  },
};

/** A state's code from UniCourt's repository (functions/ingest/state-codes): title files into state-codes/, each ingested. */
export const STATE_CODE_CONNECTOR: SourceConnector = {
  shape: STATE_CODE_RUN,
  request: stateCodeRequestSchema,
  folder: STATE_CODES_FOLDER,
  functions: {
    remote: {
      id: 'FetchFunction',
      job: 'state-code-fetch',
      description: 'State-code sync: a state’s title files read from the publisher, checked and put into the sources bucket',
      memorySize: 512,
      timeout: Duration.minutes(5),
      ephemeralStorageMb: 512,
    },
    stores: {
      id: 'IngestFunction',
      job: 'state-code-ingest',
      description: 'State-code sync: a title file from the sources bucket ingested into the versions table and the search index',
      memorySize: 3008,
      timeout: Duration.minutes(15),
      ephemeralStorageMb: 512,
    },
  },
};

/** `tn-code-sync` → `TnCodeSync`. */
const constructIdOf = (name: string) => name.replace(/(?:^|-)([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

const source = (
  name: string,
  starts: string,
  connector: SourceConnector,
  timeout: Duration,
  request?: Record<string, unknown>,
): SourceEntry => ({
  name,
  id: constructIdOf(name),
  starts,
  connector,
  timeout,
  ...(request && { request }),
});

/** A state's sync: `<st>-code-sync`, the state always in its request. */
export const stateCodeSourceName = (state: string): string => `${state}-code-sync`;

/** Every source a stage may schedule, by name. */
export const SOURCES: Readonly<Record<string, SourceEntry>> = Object.fromEntries(
  [
    // A full release point's titles ingested one after the other, each within Lambda's 15 minutes.
    source('uscode-fetch', 'the US Code fetch', USCODE_CONNECTOR, Duration.hours(24)),
    // The whole history's batches one after the other (a first run: about 5).
    source('dc-code-sync', 'the D.C. Code sync', DC_CODE_CONNECTOR, Duration.hours(12)),
    // Each state configured in functions/ingest/state-codes/formats.ts: its own job, on its own schedule.
    ...STATE_CODE_STATES.map((st) =>
      source(stateCodeSourceName(st), `the ${st.toUpperCase()} code sync`, STATE_CODE_CONNECTOR, Duration.hours(6), { state: st }),
    ),
  ].map((s) => [s.name, s]),
);

/** The connectors whose functions serve several sources: built once per stack (their construct id), not per source. */
export const SHARED_CONNECTORS: ReadonlyMap<SourceConnector, string> = new Map([[STATE_CODE_CONNECTOR, 'StateCodeFunctions']]);
