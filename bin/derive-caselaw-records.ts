/**
 * Derives data/sample/caselaw/courtlistener-records.jsonl from the CourtListener REST API v3 records of a
 * softpot9/courtlistener-bulkdata checkout (`result/<id>.json`): each record trimmed to what the case-law replica
 * reads (the opinion, its cluster, docket and court ids, the opinions it cites), with its `html_with_citations` reduced
 * to the citations CourtListener marked in it (`[opinion id, volume, reporter, page]`, in order). The opinion texts are
 * left out: the replica holds no text, and the records bundled whole (`courtlistener-api-v3/`) are skipped.
 *
 *   npx tsx bin/derive-caselaw-records.ts SOURCE_DIR data/sample/caselaw/courtlistener-api-v3 > OUT.jsonl
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markedCitations } from '#ingest/courtlistener-api.ts';

const CLUSTER_FIELDS = [
  'CL_cluster_resource_uri',
  'CL_cluster_case_name',
  'CL_cluster_case_name_full',
  'CL_cluster_case_name_short',
  'CL_cluster_date_filed',
  'CL_cluster_slug',
  'CL_cluster_precedential_status',
  'CL_cluster_citation_count',
  'CL_cluster_judges',
  'CL_cluster_federal_cite_one',
  'CL_cluster_federal_cite_two',
  'CL_cluster_federal_cite_three',
  'CL_cluster_state_cite_one',
  'CL_cluster_state_cite_two',
  'CL_cluster_state_cite_three',
  'CL_cluster_state_cite_regional',
  'CL_cluster_specialty_cite_one',
  'CL_cluster_scotus_early_cite',
  'CL_cluster_lexis_cite',
  'CL_cluster_westlaw_cite',
  'CL_cluster_neutral_cite',
];
const DOCKET_FIELDS = ['CL_docket_resource_uri', 'CL_docket_case_name', 'CL_docket_docket_number', 'CL_docket_slug'];
const OPINION_FIELDS = ['CL_opinion_id', 'CL_opinion_type', 'CL_opinion_author_str', 'CL_opinion_download_url', 'CL_opinion_resource_uri'];

const pick = (o: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
function main(sourceDir: string, bundledDir: string): void {
  const bundled = new Set(readdirSync(bundledDir).filter((f) => f.endsWith('.json')));
  const files = readdirSync(sourceDir)
    .filter((f) => /^\d+\.json$/.test(f) && !bundled.has(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  for (const file of files) {
    const record = JSON.parse(readFileSync(join(sourceDir, file), 'utf8')) as Record<string, unknown>;
    const cluster = record.CL_opinion_cluster as Record<string, unknown>;
    const docket = cluster.CL_cluster_docket as Record<string, unknown> | null | undefined;
    const court = docket?.CL_docket_court as Record<string, unknown> | undefined;
    const trimmed = {
      ...pick(record, OPINION_FIELDS),
      CL_opinion_cluster: {
        ...pick(cluster, CLUSTER_FIELDS),
        ...(docket && {
          CL_cluster_docket: {
            ...pick(docket, DOCKET_FIELDS),
            ...(court && { CL_docket_court: pick(court, ['CL_court_resource_uri']) }),
          },
        }),
      },
      Cases_Cited_Link: record.Cases_Cited_Link ?? [],
      Document_Level_Tags: ((record.Document_Level_Tags as string[] | undefined) ?? []).filter((t) => t.startsWith('ScrapeDate_')),
      HTMLtext_citations: markedCitations(String(record.HTMLtext ?? '')),
    };
    process.stdout.write(`${JSON.stringify(trimmed)}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv[2]!, process.argv[3]!);
