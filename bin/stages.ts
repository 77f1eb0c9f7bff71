import type { AlarmThresholds } from '../lib/alarm-thresholds.ts';
import type { StageDomain } from '../lib/api-domain.ts';
import type { CaseLawCapacity } from '../lib/caselaw-database.ts';
import type { DcCodeSyncSchedule, UscodeFetchSchedule } from '../lib/jobs-stack.ts';
import type { IngestSchedule } from '../lib/scheduled-jobs.ts';
import type { SearchCapacity } from '../lib/search-domain.ts';

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
   * The US Code fetched from its publisher (OLRC) on EventBridge Scheduler: an expression (UTC), and the check's
   * request (`{}` brings the store to the current release point; `{ source }` names a mirror). Undefined = no fetch.
   */
  uscodeFetch?: UscodeFetchSchedule;
  /**
   * The D.C. Code's history synced from the Council's git repository on EventBridge Scheduler: an expression (UTC), and
   * the remote (`{}`: the Council's; `{ remote }` names a mirror). Undefined = no sync.
   */
  dcCodeSync?: DcCodeSyncSchedule;
  /** NAT gateways of the stage's VPC (functions reach CourtListener, X-Ray and Secrets Manager through them). */
  natGateways: number;
  /** Aurora Serverless v2 (the case-law replica): capacity, reader, backups, deletion protection. */
  caselaw: Required<CaseLawCapacity>;
  /** The OpenSearch domain's nodes. */
  search: Required<SearchCapacity>;
}

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
    // Daily: OLRC publishes a release point every week or few; a run with nothing new reads one page.
    uscodeFetch: { schedule: 'cron(30 6 * * ? *)' },
    // Daily, after the US Code's: the Council publishes every week or two; a run with nothing new reads the refs and ends.
    dcCodeSync: { schedule: 'cron(0 8 * * ? *)' },
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
    uscodeFetch: { schedule: 'cron(30 6 * * ? *)' },
    dcCodeSync: { schedule: 'cron(0 8 * * ? *)' },
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
