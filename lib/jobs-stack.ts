import { Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type IngestSchedule, type JobBindings, ScheduledJobs } from './scheduled-jobs.ts';

export interface JobsStackProps extends StackProps {
  prefix: string;
  /** The stage's stores (the stateful stack's). */
  bindings: JobBindings;
  /** Default: none. */
  ingestSchedules?: readonly IngestSchedule[];
  /** Default: 3008 MB. */
  ingestMemoryMb?: number;
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

  constructor(scope: Construct, id: string, props: JobsStackProps) {
    super(scope, id, props);
    this.jobs = new ScheduledJobs(this, 'ScheduledJobs', {
      prefix: props.prefix,
      bindings: props.bindings,
      ...(props.ingestSchedules && { ingestSchedules: props.ingestSchedules }),
      ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
      ...(props.logRetention && { logRetention: props.logRetention }),
    });
  }
}
