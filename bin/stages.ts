/** Per-stage configuration: the only place stage settings live (read by bin/app.ts alone). */
export interface StageConfig {
  /** Resource name prefix, e.g. asof-dev. */
  prefix: string;
  /** AWS account and region; undefined = the CLI's environment (synth works offline without them). */
  account?: string;
  region?: string;
  /** Keep stateful resources when the stack is deleted. */
  retainData: boolean;
}

export const STAGES: Record<string, StageConfig> = {
  dev: { prefix: 'asof-dev', retainData: true },
  prod: { prefix: 'asof-prod', retainData: true },
};
