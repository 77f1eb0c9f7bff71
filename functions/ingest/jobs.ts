import type { TemporalBasis } from '#law/model.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { decodeOwner, EXPIRY_ONLY, type LeaseOwner, type LeaseRuntime, takeLease } from '#ops/leases.ts';
import type { LeaseRecord, OpsStore } from '#ops/ports.ts';
import { readAppendixText } from './appendix-text.ts';
import { readDcManifest } from './dc-code.ts';
import type { DcPublicationRequest } from './dc-git/publication-edition.ts';
import { type IngestReport, ingestEdition } from './engine.ts';
import { APPENDIX_TEXT, INGEST_RULE_SETS, type IngestRuleSetId, readRuleSet, ruleSetOf } from './rules.ts';
import type { SourceEdition } from './source.ts';
import { readStateCode } from './state-codes/editions.ts';
import { readUslmTitle } from './uslm.ts';

/** An ingest as the CLI, the local admin socket and the scheduled job describe it. Paths are absolute. */
export type IngestRequest =
  /** USLM title files (.xml, or OLRC's release-point .zip); `sourceUrl` only with one file (e.g. read from a mirror). */
  | { kind: 'uslm'; files: string[]; date?: string; label?: string; retrievedAt?: string; sourceUrl?: string }
  | { kind: 'dc-code'; manifest: string; retrievedAt?: string }
  /** A state code's title files in the publisher's structured HTML (functions/ingest/state-codes); folders are searched. */
  | { kind: 'state-code'; state: string; paths: string[]; retrievedAt?: string }
  /** One publication of the Council's repository (`asof fetch dc-code`). */
  | DcPublicationRequest
  | {
      kind: 'rules';
      set?: IngestRuleSetId;
      paths: string[];
      date?: string;
      label?: string;
      retrievedAt?: string;
      temporalBasis?: TemporalBasis;
    };

/** An ingest of files named by path (the bundled sample's manifest lists these). */
export type FileIngestRequest = Exclude<IngestRequest, DcPublicationRequest>;

export interface IngestJobDeps {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  now: () => Date;
  /** How to tell that the holder of the ingest lease is gone (default: nothing is known; the lease runs out in its time). */
  leases?: LeaseRuntime;
}

/** Another ingest holds the store-wide lease: nothing was done, and trying again once it has finished succeeds. */
export class IngestBusyError extends Error {
  override readonly name = 'IngestBusyError';
}

const LEASE = 'ingest';
const LEASE_SECONDS = 15 * 60;

async function editionsOf(req: IngestRequest, now: Date, log: (line: string) => void): Promise<SourceEdition[]> {
  const retrievedAt = req.retrievedAt ?? now.toISOString();
  switch (req.kind) {
    case 'uslm': {
      if (req.sourceUrl && req.files.length > 1) throw new Error('a sourceUrl names one file: ingest the files one at a time');
      const overrides = {
        retrievedAt,
        ...(req.date && { date: req.date }),
        ...(req.label && { label: req.label }),
        ...(req.sourceUrl && { sourceUrl: req.sourceUrl }),
      };
      // One file may hold several editions (an appendix and the court rules it sets out).
      return (await Promise.all(req.files.map((file) => readUslmTitle(file, overrides)))).flat();
    }
    case 'dc-code':
      return readDcManifest(req.manifest, { retrievedAt });
    case 'state-code':
      return readStateCode(req.state, req.paths, retrievedAt);
    case 'dc-code-git':
      // Loaded when asked for: the git reader is no part of the other ingests.
      return (await import('./dc-git/publication-edition.ts')).readDcPublicationRequest(req, retrievedAt, log);
    case 'rules': {
      const set = req.set ?? ruleSetOf(req.paths[0] ?? '');
      if (!set) throw new Error(`cannot tell which rule set ${req.paths.join(', ')} is; pass --set ${INGEST_RULE_SETS.join('|')}`);
      if (set === APPENDIX_TEXT) {
        const given = (['date', 'label', 'temporalBasis'] as const).filter((o) => req[o] !== undefined);
        if (given.length) throw new Error(`the US Code appendix text states its own dates and labels: ${given.join(', ')} cannot be given`);
        return readAppendixText(req.paths, { retrievedAt });
      }
      return readRuleSet(set, req.paths, {
        retrievedAt,
        ...(req.date && { date: req.date }),
        ...(req.label && { label: req.label }),
        ...(req.temporalBasis && { temporalBasis: req.temporalBasis }),
      });
    }
  }
}

/** The sections an edition skipped, named (up to 3) with why; nothing when none was. */
function describeSkipped(report: IngestReport): string {
  if (!report.skipped) return '';
  const sample = (report.edition.skipped?.sample ?? []).slice(0, 3).map((s) => `${s.where}: ${s.reason}`);
  return `; ${report.skipped} section(s) skipped (${sample.join('; ')}${report.skipped > sample.length ? '; …' : ''}), see asof audit`;
}

const processOf = (owner: LeaseOwner): string => `process ${owner.pid}${owner.host ? ` on ${owner.host}` : ''}`;

function describeHolder(holder: LeaseRecord | null): string {
  if (!holder) return '';
  const owner = decodeOwner(holder.owner);
  return ` (held${owner ? ` by ${processOf(owner)}` : ''} until ${holder.until})`;
}

/**
 * Run an ingest under the store-wide ingest lease (one at a time, whoever starts it; the lease of a process the runtime
 * knows to be gone is taken over at once), edition by edition in date order. Coverage is marked stale before the first
 * write and stays so until an ingest completes, so an ingest that dies midway never leaves coverage claiming a state
 * it did not reach. An edition that fails stops the run; re-running completes it.
 */
export async function runIngest(
  deps: IngestJobDeps,
  req: IngestRequest,
  log: (line: string) => void = () => undefined,
  { refreshSearch = true }: { refreshSearch?: boolean } = {},
): Promise<IngestReport[]> {
  const lease = await takeLease(deps.ops, LEASE, { runtime: deps.leases ?? EXPIRY_ONLY, seconds: LEASE_SECONDS, now: deps.now });
  if (!lease.held) {
    throw new IngestBusyError(
      `another ingest is running against this store; try again when it has finished${describeHolder(lease.holder)}`,
    );
  }
  if (lease.tookOverFrom) log(`took over the ingest lease of ${processOf(lease.tookOverFrom)}, which is gone`);
  try {
    const editions = (await editionsOf(req, deps.now(), log)).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    if (editions.length) await deps.ops.markIngestStarted(deps.now().toISOString());
    const reports: IngestReport[] = [];
    for (const edition of editions) {
      if (!(await lease.renew())) {
        throw new Error('the ingest lease ran out and another ingest took it: stopping here (running this ingest again completes it)');
      }
      const report = await ingestEdition(deps, edition);
      reports.push(report);
      log(
        report.unchanged
          ? `${edition.collection} ${edition.label} (${edition.date}): ${report.documents} sections, 0 changed (the same as at its last complete ingest: nothing written)` +
              describeSkipped(report)
          : `${edition.collection} ${edition.label} (${edition.date}): ${report.documents} sections, ${report.changedKeys} changed, ` +
              `${report.absentKeys} no longer shown; writes ${report.writes.put} put / ${report.writes.setValidTo} re-dated / ${report.writes.delete} removed` +
              describeSkipped(report),
      );
    }
    if (refreshSearch && reports.some((r) => r.changedKeys + r.absentKeys > 0)) await deps.search.refresh();
    if (editions.length) await deps.ops.markIngestCompleted(deps.now().toISOString());
    return reports;
  } finally {
    await lease.release().catch(() => undefined);
  }
}
