/**
 * The alarms and the dashboard name the service's own metrics by namespace, name and dimension set (lib/asof-metrics.ts);
 * CloudWatch only matches a metric with exactly that set. Here the real entry points (routeLambda, jobLambda) run and
 * their Embedded Metric Format output is read back, so that a change on either side that breaks the match fails.
 */

import { Stack } from 'aws-cdk-lib';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { health } from '#http/routes/ops.ts';
import { ENV, TABLE_ENV } from '#lambda/env.ts';
import { jobLambda } from '#lambda/job-entry.ts';
import { routeLambda } from '#lambda/route-entry.ts';
import { JOB, JOB_METRIC, jobMetric, ROUTE_METRIC, routeMetric } from '../../../lib/asof-metrics.ts';

interface Emitted {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
}

const saved = { ...process.env };
let printed: string[];

beforeEach(() => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    // Development mode prints through the global console (spied below); metrics stay on explicitly.
    POWERTOOLS_DEV: 'true',
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    POWERTOOLS_TRACE_ENABLED: 'false',
    // The route wiring refuses to start without these; the health route never reaches the table.
    [TABLE_ENV.meters]: 'asof-test-meters',
    [ENV.siteUrl]: 'https://asof.test',
    [ENV.baseUrl]: 'https://asof.test/v1',
  });
  printed = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
});
afterEach(() => {
  vi.restoreAllMocks();
  process.env = { ...saved };
});

/** Every metric of the EMF documents printed so far, with the dimension set it was published under. */
function emitted(): Emitted[] {
  return printed.flatMap((line) => {
    const doc = parse(line);
    const directives = doc?._aws?.CloudWatchMetrics ?? [];
    return directives.flatMap((d: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }) =>
      d.Metrics.flatMap((m) =>
        d.Dimensions.map((set) => ({
          namespace: d.Namespace,
          metricName: m.Name,
          dimensions: Object.fromEntries(set.map((k) => [k, String(doc[k])])),
        })),
      ),
    );
  });
}

function parse(line: string): any {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** The identity an alarm watches, as CloudFormation will get it. */
function watched(metric: Metric): Emitted {
  const stack = new Stack();
  return {
    namespace: metric.namespace,
    metricName: metric.metricName,
    dimensions: stack.resolve(metric.dimensions) as Record<string, string>,
  };
}

const context = (id: string) =>
  ({
    awsRequestId: id,
    functionName: id,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

const healthEvent = (): APIGatewayProxyEvent => ({
  httpMethod: 'GET',
  path: '/v1/health',
  resource: '/health',
  pathParameters: null,
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  headers: {},
  multiValueHeaders: {},
  body: null,
  isBase64Encoded: false,
  stageVariables: null,
  requestContext: {
    requestId: 'metric-identity',
    httpMethod: 'GET',
    path: '/v1/health',
    resourcePath: '/health',
    stage: 'v1',
  } as APIGatewayProxyEvent['requestContext'],
});

describe('the metrics the alarms watch are the metrics the functions emit', () => {
  it('a route function counts its answer under the identity of routeMetric', async () => {
    // Prepare
    const handler = routeLambda(health);

    // Act
    const res = await handler(healthEvent(), context('health'));

    // Assess
    expect(res.statusCode).toBe(200);
    expect(emitted()).toContainEqual(watched(routeMetric(health.id, ROUTE_METRIC.success)));
  });

  it('a job counts its run and its own metrics under the identity of jobMetric', async () => {
    // Prepare
    const handler = jobLambda(JOB.probe, async (_event: unknown, { metrics }) => {
      metrics.addMetric(JOB_METRIC.corpusHealthy, 'Count', 0);
      return { healthy: false };
    });

    // Act
    await handler({}, context('probe'));

    // Assess
    const out = emitted();
    expect(out).toContainEqual(watched(jobMetric(JOB.probe, JOB_METRIC.corpusHealthy)));
    expect(out).toContainEqual(watched(jobMetric(JOB.probe, JOB_METRIC.succeeded)));
  });

  it('a failing job counts JobFailed under the identity its alarm watches, and rethrows', async () => {
    // Prepare
    const handler = jobLambda('coverage', async () => {
      throw new Error('store unreachable');
    });

    // Act
    const run = handler({}, context('coverage'));

    // Assess
    await expect(run).rejects.toThrow('store unreachable');
    expect(emitted()).toContainEqual(watched(jobMetric('coverage', JOB_METRIC.failed)));
  });

  it('would catch a dimension set that differs: without the service dimension nothing matches', async () => {
    // Prepare
    const handler = routeLambda(health);
    const withoutService = watched(routeMetric(health.id, ROUTE_METRIC.success));
    delete withoutService.dimensions.service;

    // Act
    await handler(healthEvent(), context('health'));

    // Assess
    expect(emitted().length).toBeGreaterThan(0);
    expect(emitted()).not.toContainEqual(withoutService);
  });
});
