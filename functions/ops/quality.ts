import type { AuditFinding, AuditRun, OpsStore } from './ports.ts';

export interface QualityView {
  run: AuditRun | null;
  findings: AuditFinding[];
  note: string;
  history?: AuditRun[];
}

const HISTORY_RUNS = 20;

/** The latest audit of the service's data (not of the law) for a jurisdiction, or over everything. */
export async function readQuality(ops: OpsStore, params: { jurisdiction?: string; history?: boolean }): Promise<QualityView> {
  const jurisdiction = params.jurisdiction ?? 'all';
  const latest = await ops.latestAuditRun(jurisdiction);
  const history = params.history ? { history: await ops.auditHistory(jurisdiction, HISTORY_RUNS) } : {};
  if (!latest) {
    return {
      run: null,
      findings: [],
      note: `No audit has been recorded for '${jurisdiction}' yet; audits run on a schedule and with \`asof audit\`.`,
      ...history,
    };
  }
  const { run, findings } = latest;
  return {
    run,
    findings,
    note: `Audit of the service's stored data, not of the law. Only non-passing checks are listed: ${run.passed} of ${run.totalChecks} passed.`,
    ...history,
  };
}
