/**
 * `asof ingest uslm|dc-code|rules|state-code|courtlistener PATH...`: files already on disk into the data dir's stores,
 * as an admin job. The options are checked here, so a mistake is a usage error before anything is read.
 */
import type { IngestRequest } from '#ingest/jobs.ts';
import { INGEST_RULE_SETS, ruleSetOf } from '#ingest/rules.ts';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import { TEMPORAL_BASES, type TemporalBasis } from '#law/model.ts';
import { type Command, type Flags, UsageError } from './command.ts';
import { abs, DATA_DIR, dataDirOf, JSON_OUTPUT } from './flags.ts';
import { runJob } from './run-job.ts';

const OPTIONS = {
  date: { type: 'string' },
  label: { type: 'string' },
  'retrieved-at': { type: 'string' },
  'source-url': { type: 'string' },
  set: { type: 'string' },
  basis: { type: 'string' },
  state: { type: 'string' },
  ...JSON_OUTPUT,
  ...DATA_DIR,
} as const;

export const ingestCommand: Command<typeof OPTIONS> = {
  name: 'ingest',
  options: OPTIONS,
  usage: () => `  ingest uslm FILE.xml|FILE.zip... [--date YYYY-MM-DD] [--label L] [--retrieved-at ISO] [--source-url URL]
                             US Code titles (OLRC's release-point zips or their XML); the label and address of each
                             version default to the release point and OLRC's download address of the file
  ingest dc-code MANIFEST.csv [--retrieved-at ISO]
  ingest rules PATH... [--set ${INGEST_RULE_SETS.join('|')}] [--date D] [--label L] [--basis B] [--retrieved-at ISO]
                             (us-code-appendix: the Code's Title 28/18 appendix text files, .txt or .txt.gz, which
                             state their own dates)
  ingest courtlistener PATH...   CourtListener bulk-data CSV files (.csv, .csv.gz) or API records (court fixture,
                             API v3 opinions, opinion_clusters) into the case-law replica
  ingest state-code --state tn|ms PATH... [--retrieved-at ISO]
                             a state code's title files in the publisher's structured HTML (folders are searched)`,
  run([sub, ...rest], flags, io, { cwd }) {
    const dataDir = dataDirOf(flags, cwd);
    if (!sub) throw new UsageError('ingest needs a source kind: uslm, dc-code, rules, state-code or courtlistener');
    if (sub === 'courtlistener') {
      if (!rest.length) throw new UsageError('ingest courtlistener needs at least one file or folder of CourtListener records');
      return runJob('ingest-courtlistener', { paths: rest.map((p) => abs(cwd, p)) }, dataDir, io, flags.json);
    }
    return runJob('ingest', ingestRequest(sub, rest, flags, cwd), dataDir, io, flags.json);
  },
};

function ingestRequest(kind: string, paths: string[], flags: Flags<typeof OPTIONS>, cwd: string): IngestRequest {
  if (!paths.length) throw new UsageError(`ingest ${kind} needs at least one file`);
  const files = paths.map((p) => abs(cwd, p));
  const retrievedAt = flags['retrieved-at'];
  if (retrievedAt !== undefined && Number.isNaN(Date.parse(retrievedAt)))
    throw new UsageError(`--retrieved-at must be an ISO timestamp (got '${retrievedAt}')`);
  if (flags.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.date))
    throw new UsageError(`--date must be YYYY-MM-DD (got '${flags.date}')`);
  const common = {
    ...(retrievedAt && { retrievedAt }),
    ...(flags.date && { date: flags.date }),
    ...(flags.label && { label: flags.label }),
  };
  switch (kind) {
    case 'uslm': {
      const sourceUrl = flags['source-url'];
      if (sourceUrl !== undefined) {
        if (!URL.canParse(sourceUrl)) throw new UsageError(`--source-url must be a URL (got '${sourceUrl}')`);
        if (files.length !== 1) throw new UsageError('--source-url names one file: ingest the files one at a time');
      }
      return { kind: 'uslm', files, ...common, ...(sourceUrl && { sourceUrl }) };
    }
    case 'dc-code':
      if (files.length !== 1) throw new UsageError('ingest dc-code takes one MANIFEST.csv');
      return { kind: 'dc-code', manifest: files[0]!, ...(retrievedAt && { retrievedAt }) };
    case 'rules': {
      const set = INGEST_RULE_SETS.find((s) => s === (flags.set ?? ruleSetOf(files[0]!)));
      if (!set) throw new UsageError(`ingest rules needs --set ${INGEST_RULE_SETS.join('|')} (or a folder named after the set)`);
      if (flags.basis !== undefined && !(TEMPORAL_BASES as readonly string[]).includes(flags.basis)) {
        throw new UsageError(`--basis must be one of ${TEMPORAL_BASES.join(', ')}`);
      }
      return { kind: 'rules', set, paths: files, ...common, ...(flags.basis && { temporalBasis: flags.basis as TemporalBasis }) };
    }
    case 'state-code': {
      const state = flags.state?.toLowerCase();
      if (!state || !Object.hasOwn(STATE_CODE_FORMATS, state)) {
        throw new UsageError(`ingest state-code needs --state ${Object.keys(STATE_CODE_FORMATS).join('|')}`);
      }
      return { kind: 'state-code', state, paths: files, ...(retrievedAt && { retrievedAt }) };
    }
    default:
      throw new UsageError(`unknown source kind '${kind}' (uslm, dc-code, rules, state-code, courtlistener)`);
  }
}
