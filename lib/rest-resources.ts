import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  type IResource,
  type IRestApi,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type StageOptions,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** The resource for a path such as /law/cases/{clusterId}/cited-by, creating the missing parts. */
export function resourceAt(root: IResource, path: string): IResource {
  let resource = root;
  for (const part of path.split('/').filter(Boolean)) resource = resource.getResource(part) ?? resource.addResource(part);
  return resource;
}

/**
 * A stage as every REST API of the service has it: X-Ray, CloudWatch metrics, execution logs of errors, and an
 * access log of one JSON line per request (request id, caller IP, method, path, status, latency; never the
 * Authorization header) in a log group of `scope`'s named `AccessLogs`.
 */
export function loggedStage(scope: Construct, stageName: string, retention: RetentionDays): StageOptions {
  const accessLogs = new LogGroup(scope, 'AccessLogs', { retention, removalPolicy: RemovalPolicy.DESTROY });
  return {
    stageName,
    tracingEnabled: true,
    metricsEnabled: true,
    loggingLevel: MethodLoggingLevel.ERROR,
    accessLogDestination: new LogGroupLogDestination(accessLogs),
    accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
  };
}

/** A REST API's address on API Gateway's own domain, its stage included (no trailing slash). */
export function executeApiUrl(api: IRestApi, stageName: string): string {
  const stack = Stack.of(api);
  return `https://${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${stageName}`;
}
