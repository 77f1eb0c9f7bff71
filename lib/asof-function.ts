import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import { type IRole, ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, type ILayerVersion, LayerVersion, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Access, FunctionNetwork, StoreBinding } from './store-binding.ts';

export interface AsofFunctionProps {
  /** The entry file below functions/lambda/, e.g. `routes/law-lookup.ts`. */
  entry: string;
  functionName: string;
  /** Environment beyond what bindings set. Default: none. */
  environment?: Record<string, string>;
  /** Default: 1024 MB. */
  memorySize?: number;
  /** Default: 10 s. */
  timeout?: Duration;
  /** Default: one week. */
  logRetention?: RetentionDays;
  /** The VPC placement a binding needs; default: none (outside any VPC). */
  network?: FunctionNetwork;
  /** Layers (shared data files); default: none. */
  layers?: ILayerVersion[];
  /** The function's /tmp (MB); default: Lambda's 512 MB. */
  ephemeralStorageMb?: number;
  /** The execution role (given the policies Lambda gives a role of its own: logs, and network interfaces in a VPC); default: a role of its own. */
  role?: IRole;
  description?: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * How every function is bundled and started: the NodejsFunction options below and the benchmark, which measures the
 * assets as deployed (bench/bundles.ts), both read this.
 */
export const FUNCTION_BUNDLE = {
  target: 'node22',
  minify: true,
  sourceMap: true,
  // The map turns stack traces into files and lines; the sources it could also hold only cost load time (bench 1d).
  sourcesContent: false,
  mainFields: ['module', 'main'],
  // CommonJS: Node requires each built-in when first used, where an ES module links every built-in any bundled module
  // imports before its first line runs (about 20-27 ms CPU of each cold start, bench 1d). import.meta.url, which a
  // CommonJS bundle lacks, is given the bundle's own file URL.
  format: 'cjs' as 'cjs' | 'esm',
  define: { 'import.meta.url': '__asofModuleUrl' },
  banner: "const __asofModuleUrl = require('node:url').pathToFileURL(__filename).href;",
  nodeOptions: '--enable-source-maps',
} as const;

/**
 * Every function of the service, endpoint or job: Node.js 22 on ARM64, an esbuild CommonJS bundle with the AWS SDK inside,
 * source maps, X-Ray, an explicit log group. Stores are given with `bind`, which sets environment, grant and network
 * together.
 */
export class AsofFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: AsofFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.fn = new NodejsFunction(this, 'Function', {
      functionName: props.functionName,
      ...(props.description && { description: props.description }),
      entry: `${ROOT}functions/lambda/${props.entry}`,
      projectRoot: ROOT,
      depsLockFilePath: `${ROOT}package-lock.json`,
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup,
      ...(props.layers && { layers: props.layers }),
      ...(props.ephemeralStorageMb && { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) }),
      ...(props.role && { role: props.role }),
      ...(props.network && {
        vpc: props.network.vpc,
        vpcSubnets: props.network.subnets,
        ...(props.network.securityGroups && { securityGroups: props.network.securityGroups }),
      }),
      environment: { NODE_OPTIONS: FUNCTION_BUNDLE.nodeOptions, POWERTOOLS_SERVICE_NAME: 'asof', ...props.environment },
      bundling: {
        format: FUNCTION_BUNDLE.format === 'cjs' ? OutputFormat.CJS : OutputFormat.ESM,
        define: FUNCTION_BUNDLE.define,
        target: FUNCTION_BUNDLE.target,
        minify: FUNCTION_BUNDLE.minify,
        sourceMap: FUNCTION_BUNDLE.sourceMap,
        sourcesContent: FUNCTION_BUNDLE.sourcesContent,
        // The SDK is bundled (pinned with the code, tree-shaken), not taken from the runtime.
        externalModules: [],
        mainFields: [...FUNCTION_BUNDLE.mainFields],
        banner: FUNCTION_BUNDLE.banner,
      },
    });
    // Lambda gives these to a role it creates, not to one it is given.
    if (props.role) {
      props.role.addManagedPolicy(ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole'));
      if (props.network)
        props.role.addManagedPolicy(ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'));
    }
    Validations.of(this).acknowledge(...LAMBDA_ACKNOWLEDGEMENTS);
  }

  /** Gives the function a store: its environment, its grant, its network path (see StoreBinding). */
  bind(store: StoreBinding, access: Access): this {
    store.bind(this, access);
    return this;
  }

  addEnvironment(name: string, value: string): this {
    this.fn.addEnvironment(name, value);
    return this;
  }
}

/** reporters-db as a layer at /opt/reporters-db (the citation extractor reads it from REPORTERS_DB_DIR). */
export function reportersDbLayer(scope: Construct, id: string): LayerVersion {
  return new LayerVersion(scope, id, {
    // With its licence and provenance note: the BSD licence travels with the data.
    code: Code.fromAsset(`${ROOT}layers`),
    compatibleRuntimes: [Runtime.NODEJS_22_X],
    compatibleArchitectures: [Architecture.ARM_64],
    description: 'reporters-db (Free Law Project, BSD-2-Clause): the tables the citation extractor walks',
  });
}

export const REPORTERS_DB_DIR = '/opt/reporters-db';

/**
 * cdk-nag findings every function of the service has, with why they stand (a role the function is given carries the
 * same managed policies and is acknowledged where it is made).
 */
export const LAMBDA_ACKNOWLEDGEMENTS = [
  {
    id: 'AwsSolutions-L1',
    reason:
      'Node.js 22 is the runtime the functions are built, tested and measured on (bench 1d); moving to a newer one is a deliberate, measured change.',
  },
  {
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: 'The policy Lambda documents for writing a function’s own logs; it grants CloudWatch Logs writes only.',
  },
  {
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason:
      'For a function in the VPC (search, case law): the policy Lambda documents for managing its network interfaces, and nothing else.',
  },
  {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray’s PutTraceSegments and PutTelemetryRecords (tracing is on in every function) accept no resource-level permission.',
  },
];
