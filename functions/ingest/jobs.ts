import type { TemporalBasis } from '#law/model.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { OpsStore } from '#ops/ports.ts';
import { readDcManifest } from './dc-code.ts';
import { type IngestReport, ingestEdition } from './engine.ts';
import { RULE_SETS, type RuleSetId, readRuleSet, ruleSetOf } from './rules.ts';
import type { SourceEdition } from './source.ts';
import { readUslmTitle } from './uslm.ts';

/** An ingest as the CLI, the local admin socket and the scheduled job describe it. Paths are absolute. */
export type IngestRequest =
  | { kind: 'uslm'; files: string[]; date?: string; label?: string; retrievedAt?: string }
  | { kind: 'dc-code'; manifest: string; retrievedAt?: string }
  | { kind: 'rules'; set?: RuleSetId; paths: string[]; date?: string; label?: string; retrievedAt?: string; temporalBasis?: TemporalBasis };

export interface IngestJobDeps {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  now: () => Date;
}

const LEASE = 'ingest';
const LEASE_SECONDS = 15 * 60;

async function editionsOf(req: IngestRequest, now: Date): Promise<SourceEdition[]> {
  const retrievedAt = req.retrievedAt ?? now.toISOString();
  switch (req.kind) {
    case 'uslm':
      return Promise.all(
        req.files.map((file) =>
          readUslmTitle(file, { retrievedAt, ...(req.date && { date: req.date }), ...(req.label && { label: req.label }) }),
        ),
      );
    case 'dc-code':
      return readDcManifest(req.manifest, { retrievedAt });
    case 'rules': {
      const set = req.set ?? ruleSetOf(req.paths[0] ?? '');
      if (!set) throw new Error(`cannot tell which rule set ${req.paths.join(', ')} is; pass --set ${RULE_SETS.join('|')}`);
      return readRuleSet(set, req.paths, {
        retrievedAt,
        ...(req.date && { date: req.date }),
        ...(req.label && { label: req.label }),
        ...(req.temporalBasis && { temporalBasis: req.temporalBasis }),
      });
    }
  }
}

/**
 * Run an ingest under the store-wide ingest lease (one at a time, whoever starts it), edition by edition in date
 * order, then mark coverage for refresh. An edition that fails stops the run; re-running completes it.
 */
export async function runIngest(
  deps: IngestJobDeps,
  req: IngestRequest,
  log: (line: string) => void = () => undefined,
): Promise<IngestReport[]> {
  const owner = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const until = () => new Date(deps.now().getTime() + LEASE_SECONDS * 1000).toISOString();
  if (!(await deps.ops.acquireLease(LEASE, owner, until(), deps.now().toISOString()))) {
    throw new Error('another ingest is running against this store; try again when it has finished');
  }
  try {
    const editions = (await editionsOf(req, deps.now())).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const reports: IngestReport[] = [];
    for (const edition of editions) {
      await deps.ops.acquireLease(LEASE, owner, until(), deps.now().toISOString());
      const report = await ingestEdition(deps, edition);
      reports.push(report);
      log(
        `${edition.collection} ${edition.label} (${edition.date}): ${report.documents} sections, ${report.changedKeys} changed, ` +
          `${report.absentKeys} no longer shown; writes ${report.writes.put} put / ${report.writes.setValidTo} re-dated / ${report.writes.delete} removed`,
      );
    }
    if (reports.some((r) => r.changedKeys + r.absentKeys > 0)) await deps.search.refresh();
    await deps.ops.markCoverageDirty(deps.now().toISOString());
    return reports;
  } finally {
    await deps.ops.releaseLease(LEASE, owner).catch(() => undefined);
  }
}
