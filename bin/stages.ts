import { STATE_CODE_STATES } from '../functions/lambda/jobs/state-code-steps.ts';
import type { AlarmThresholds } from '../lib/alarm-thresholds.ts';
import type { StageDomain } from '../lib/api-domain.ts';
import type { CaseLawCapacity } from '../lib/caselaw-database.ts';
import type { SourceSchedule } from '../lib/jobs-stack.ts';
import type { IngestSchedule } from '../lib/scheduled-jobs.ts';
import type { SearchCapacity } from '../lib/search-domain.ts';
import { SOURCES, stateCodeSourceName } from '../lib/sources.ts';

/** Per-stage configuration: the only place stage settings live (read by bin/app.ts alone). */
export interface StageConfig {
  /** Resource name prefix, e.g. asof-dev. */
  prefix: string;
  /** AWS account and region; undefined = the CLI's environment (synth works offline without them). */
  account?: string;
  region?: string;
  /** Keep stateful resources when the stack is deleted. */
  retainData: boolean;
  /**
   * The stage's own domain (an ACM certificate in the stage's region, optionally the Route 53 zone for its alias): the
   * public site, where permalinks resolve, at its root and the API at /v1. Undefined = API Gateway's own addresses.
   */
  domain?: StageDomain;
  /** Each endpoint function's memory (MB) and timeout (s). */
  functionMemoryMb: number;
  functionTimeoutSeconds: number;
  /** Days CloudWatch keeps function logs. */
  logRetentionDays: 7 | 30 | 90 | 365;
  /**
   * Secrets Manager name of the CourtListener API token (the case-law fallback's shared token); the operator creates the
   * secret (README, "Deploying"). Undefined = the stage has no fallback.
   */
  courtListenerTokenSecret?: string;
  /** Where the stage's alarms are e-mailed (the address confirms the SNS subscription once); undefined = no e-mail. */
  alarmEmail?: string;
  /** Alarm thresholds differing from the defaults in lib/alarm-thresholds.ts. */
  alarmThresholds?: Partial<AlarmThresholds>;
  /**
   * Ingest runs on EventBridge Scheduler: a name, an expression and the event naming files in the sources bucket, e.g.
   * `{ name: 'usc', schedule: 'cron(0 7 ? * MON *)', event: { kind: 'uslm', files: ['uslm/usc01.xml'] } }`.
   */
  ingestSchedules: IngestSchedule[];
  /** The ingest function's memory (MB), also the US Code fetch's ingest step's. */
  ingestMemoryMb: number;
  /**
   * The sources run on EventBridge Scheduler, by name (lib/sources.ts): an expression (UTC), and the plan's request
   * (`{}`: the source's default: the US Code's current release point, the Council's repository, a state's configured
   * releases from its publisher; `{ source }` or `{ remote }` names a mirror). A source not named is not run.
   */
  sources: Record<string, SourceSchedule>;
  /** NAT gateways of the stage's VPC (functions reach CourtListener, X-Ray and Secrets Manager through them). */
  natGateways: number;
  /** Aurora Serverless v2 (the case-law replica): capacity, reader, backups, deletion protection. */
  caselaw: Required<CaseLawCapacity>;
  /** The OpenSearch domain's nodes. */
  search: Required<SearchCapacity>;
}

/**
 * Every source on its own schedule. The US Code daily: OLRC publishes a release point every week or few; a run with
 * nothing new reads one page. The D.C. Code daily, after it: the Council publishes every week or two; a run with
 * nothing new reads the refs and ends. Each state weekly, an hour apart from 10:00 on Sundays (so that one state's
 * ingests seldom wait for another's lease; its releases are the publisher's repository at the configured commit: a
 * run with nothing new reads the markers and ends); the states are those functions/ingest/state-codes/formats.ts
 * configures.
 */
const SCHEDULED_SOURCES: Record<string, SourceSchedule> = {
  'uscode-fetch': { schedule: 'cron(30 6 * * ? *)' },
  'dc-code-sync': { schedule: 'cron(0 8 * * ? *)' },
  ...Object.fromEntries(
    STATE_CODE_STATES.map((st, i) => [
      stateCodeSourceName(st),
      { schedule: `cron(0 ${(10 + i) % 24} ? * ${['SUN', 'MON', 'TUE'][Math.floor((10 + i) / 24)]} *)` },
    ]),
  ),
};
for (const name of Object.keys(SCHEDULED_SOURCES)) if (!SOURCES[name]) throw new Error(`bin/stages.ts: no source '${name}'`);

export const STAGES: Record<string, StageConfig> = {
  dev: {
    prefix: 'asof-dev',
    courtListenerTokenSecret: 'asof-dev/courtlistener-token',
    retainData: true,
    functionMemoryMb: 1024,
    functionTimeoutSeconds: 10,
    logRetentionDays: 7,
    // Dev pages nobody and tolerates a slower p99 (small capacity, frequent cold starts).
    alarmThresholds: { p99LatencyMs: 2000 },
    ingestSchedules: [],
    ingestMemoryMb: 3008,
    sources: SCHEDULED_SOURCES,
    natGateways: 1,
    caselaw: { minAcu: 0.5, maxAcu: 2, reader: false, backupRetentionDays: 7, deletionProtection: false },
    search: {
      instanceType: 't3.small.search',
      dataNodes: 1,
      volumeGb: 10,
      zoneAwareness: false,
      masterNodes: 0,
      masterInstanceType: 'm6g.large.search',
    },
  },
  prod: {
    prefix: 'asof-prod',
    courtListenerTokenSecret: 'asof-prod/courtlistener-token',
    retainData: true,
    // With a domain of your own: domain: { name: 'asof.example.org', certificateArn: 'arn:aws:acm:…', hostedZone: { id: 'Z…', name: 'example.org' } },
    functionMemoryMb: 1769,
    functionTimeoutSeconds: 10,
    logRetentionDays: 90,
    alarmEmail: 'ops@asof.example',
    ingestSchedules: [],
    ingestMemoryMb: 3008,
    sources: SCHEDULED_SOURCES,
    natGateways: 2,
    caselaw: { minAcu: 1, maxAcu: 8, reader: true, backupRetentionDays: 30, deletionProtection: true },
    search: {
      instanceType: 'm6g.large.search',
      dataNodes: 2,
      volumeGb: 50,
      zoneAwareness: true,
      masterNodes: 3,
      masterInstanceType: 'm6g.large.search',
    },
  },
};
