import { Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { TitleJobsRequest } from '../functions/ingest/olrc/title-jobs.ts';
import type { SyncRequest } from '../functions/lambda/jobs/dc-code-steps.ts';
import { DcCodeSync } from './dc-code-sync.ts';
import { type IngestSchedule, type JobBindings, ScheduledJobs } from './scheduled-jobs.ts';
import { UscodeFetch } from './uscode-fetch.ts';

/** The scheduled US Code fetch: when, and what the check is asked (default `{}`: bring the store to the current release point). */
export interface UscodeFetchSchedule {
  schedule: string;
  request?: TitleJobsRequest;
}

/** The scheduled D.C. Code sync: when, and from which remote (default `{}`: the Council's repository). */
export interface DcCodeSyncSchedule {
  schedule: string;
  request?: SyncRequest;
}

export interface JobsStackProps extends StackProps {
  prefix: string;
  /** The stage's stores (the stateful stack's). */
  bindings: JobBindings;
  /** Default: none. */
  ingestSchedules?: readonly IngestSchedule[];
  /** Default: 3008 MB (the ingest job's, and the US Code fetch's ingest step's). */
  ingestMemoryMb?: number;
  /** The US Code fetch from the publisher on a schedule (needs the sources bucket). Default: none. */
  uscodeFetch?: UscodeFetchSchedule;
  /** The D.C. Code's history synced from the Council's repository on a schedule (needs the sources bucket). Default: none. */
  dcCodeSync?: DcCodeSyncSchedule;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

/**
 * The scheduled jobs of a stage, in a stack of their own: they deploy without touching the API (an ingest schedule
 * changed in the stage configuration redeploys only this), and the API stack keeps its room under CloudFormation's
 * resource limit for the routes.
 */
export class JobsStack extends Stack {
  readonly jobs: ScheduledJobs;
  readonly uscodeFetch?: UscodeFetch;
  readonly dcCodeSync?: DcCodeSync;

  constructor(scope: Construct, id: string, props: JobsStackProps) {
    super(scope, id, props);
    this.jobs = new ScheduledJobs(this, 'ScheduledJobs', {
      prefix: props.prefix,
      bindings: props.bindings,
      ...(props.ingestSchedules && { ingestSchedules: props.ingestSchedules }),
      ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
      ...(props.logRetention && { logRetention: props.logRetention }),
    });
    if (props.uscodeFetch) {
      this.uscodeFetch = new UscodeFetch(this, 'UscodeFetch', {
        prefix: props.prefix,
        bindings: props.bindings,
        schedule: props.uscodeFetch.schedule,
        ...(props.uscodeFetch.request && { request: props.uscodeFetch.request }),
        ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
        ...(props.logRetention && { logRetention: props.logRetention }),
      });
    }
    if (props.dcCodeSync) {
      this.dcCodeSync = new DcCodeSync(this, 'DcCodeSync', {
        prefix: props.prefix,
        bindings: props.bindings,
        schedule: props.dcCodeSync.schedule,
        ...(props.dcCodeSync.request && { request: props.dcCodeSync.request }),
        ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
        ...(props.logRetention && { logRetention: props.logRetention }),
      });
    }
  }
}
