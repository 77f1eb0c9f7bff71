import type { z } from 'zod';
import { corpusHealth, liveness } from '#ops/health.ts';
import { readQuality } from '#ops/quality.ts';
import { AppError, StoreUnavailableError } from '#shared/errors.ts';
import { presentFinding } from '../present.ts';
import type { RouteContext, RouteResult } from '../route.ts';
import type { CoverageInputSchema, QualityInputSchema } from '../schemas.ts';
import { need } from './need.ts';

export async function handleCoverage(input: z.output<typeof CoverageInputSchema>, { services }: RouteContext): Promise<RouteResult> {
  const coverage = need(services.coverage);
  return {
    body: await coverage.read({
      ...(input.jurisdiction && { jurisdiction: input.jurisdiction }),
      ...(input.corpus && { corpus: input.corpus }),
    }),
  };
}

/** Quality answers 503 rather than 500 on any failure to read the audit. */
export async function handleQuality(input: z.output<typeof QualityInputSchema>, { services }: RouteContext): Promise<RouteResult> {
  const ops = need(services.ops, 'The operations store');
  try {
    const quality = await readQuality(ops, {
      ...(input.jurisdiction && { jurisdiction: input.jurisdiction }),
      ...(input.history !== undefined && { history: input.history }),
    });
    return { body: { ...quality, findings: quality.findings.map(presentFinding) } };
  } catch (err) {
    if (err instanceof AppError) throw err;
    const why = err instanceof StoreUnavailableError ? 'is unreachable' : 'could not be read';
    throw new AppError('statutes_unavailable', `The audit record ${why}; try again shortly.`, {}, {}, { cause: err });
  }
}

export async function handleLiveness(_input: unknown, { services }: RouteContext): Promise<RouteResult> {
  return { body: liveness(services.now()) };
}

export async function handleCorpusHealth(_input: unknown, { services }: RouteContext): Promise<RouteResult> {
  const ops = services.ops;
  const record = ops
    ? await corpusHealth({ ops, now: services.now })
    : {
        ok: false,
        status: 'unhealthy' as const,
        reason: 'store_not_configured',
        checkedSecondsAgo: -1,
        service: 'asof',
        timestamp: services.now().toISOString(),
      };
  return { status: record.ok ? 200 : 503, body: record, ...(!record.ok && { headers: { 'retry-after': '60' } }) };
}
