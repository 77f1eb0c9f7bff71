import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';

export interface RouteFunctionProps {
  /** The route id; the entry is functions/lambda/routes/<routeId>.ts. */
  routeId: string;
  functionName: string;
  environment: Record<string, string>;
  memorySize: number;
  timeout: Duration;
  logRetention: RetentionDays;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One endpoint's function: Node.js 22 on ARM64, an esbuild ESM bundle with the AWS SDK inside, source maps on. */
export class RouteFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.fn = new NodejsFunction(this, 'Function', {
      functionName: props.functionName,
      entry: `${ROOT}functions/lambda/routes/${props.routeId}.ts`,
      projectRoot: ROOT,
      depsLockFilePath: `${ROOT}package-lock.json`,
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'asof', ...props.environment },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        // The SDK is bundled (pinned with the code, tree-shaken), not taken from the runtime.
        externalModules: [],
        mainFields: ['module', 'main'],
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
  }
}
