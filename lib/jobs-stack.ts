import { Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type IngestSchedule, type JobBindings, ScheduledJobs } from './scheduled-jobs.ts';
import { type SourceEntry, type SourceFunctions, SourceSync, sourceFunctions } from './source-sync.ts';
import { SHARED_CONNECTORS, SOURCES } from './sources.ts';

/** A scheduled source in a stage: when (an EventBridge Scheduler expression, UTC), and its plan's request (default `{}`). */
export interface SourceSchedule {
  schedule: string;
  request?: Record<string, unknown>;
}

export interface JobsStackProps extends StackProps {
  prefix: string;
  /** The stage's stores (the stateful stack's). */
  bindings: JobBindings;
  /** Default: none. */
  ingestSchedules?: readonly IngestSchedule[];
  /** Default: 3008 MB (the ingest job's, and each source's ingest step's). */
  ingestMemoryMb?: number;
  /** The sources run on a schedule, by name (lib/sources.ts; they need the sources bucket). Default: none. */
  sources?: Readonly<Record<string, SourceSchedule>>;
  /** The sources that may be scheduled. Default: lib/sources.ts's. */
  catalog?: Readonly<Record<string, SourceEntry>>;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

/**
 * The scheduled jobs of a stage, in a stack of their own: they deploy without touching the API (an ingest schedule
 * changed in the stage configuration redeploys only this), and the API stack keeps its room under CloudFormation's
 * resource limit for the routes. Each scheduled source is a SourceSync; a connector that serves several sources
 * (each state's code) has its two functions built once, for all of them.
 */
export class JobsStack extends Stack {
  readonly jobs: ScheduledJobs;
  /** The scheduled sources, by name. */
  readonly syncs: ReadonlyMap<string, SourceSync>;

  constructor(scope: Construct, id: string, props: JobsStackProps) {
    super(scope, id, props);
    this.jobs = new ScheduledJobs(this, 'ScheduledJobs', {
      prefix: props.prefix,
      bindings: props.bindings,
      ...(props.ingestSchedules && { ingestSchedules: props.ingestSchedules }),
      ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
      ...(props.logRetention && { logRetention: props.logRetention }),
    });
    const catalog = props.catalog ?? SOURCES;
    const shared = new Map<string, SourceFunctions>();
    const syncs = new Map<string, SourceSync>();
    const ownFunctions = new Map<SourceEntry['connector'], string>();
    for (const [name, configured] of Object.entries(props.sources ?? {})) {
      const source = Object.hasOwn(catalog, name) ? catalog[name] : undefined;
      if (!source) throw new Error(`no scheduled source '${name}' (known: ${Object.keys(catalog).join(', ')})`);
      const sharedId = SHARED_CONNECTORS.get(source.connector);
      // A connector that is not shared names its functions after itself: a second source of it would name them again.
      const other = ownFunctions.get(source.connector);
      if (!sharedId && other)
        throw new Error(
          `sources '${other}' and '${name}' use the same connector, whose functions are not shared (lib/sources.ts, SHARED_CONNECTORS)`,
        );
      if (!sharedId) ownFunctions.set(source.connector, name);
      let functions: SourceFunctions | undefined;
      if (sharedId && props.bindings.sources) {
        functions = shared.get(sharedId);
        if (!functions) {
          functions = sourceFunctions(new Construct(this, sharedId), {
            prefix: props.prefix,
            connector: source.connector,
            bindings: props.bindings,
            logRetention: props.logRetention ?? RetentionDays.ONE_WEEK,
            ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
          });
          shared.set(sharedId, functions);
        }
      }
      syncs.set(
        name,
        new SourceSync(this, source.id, {
          prefix: props.prefix,
          source,
          bindings: props.bindings,
          schedule: configured.schedule,
          ...(configured.request && { request: configured.request }),
          ...(functions && { functions }),
          ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
          ...(props.logRetention && { logRetention: props.logRetention }),
        }),
      );
    }
    this.syncs = syncs;
  }
}
