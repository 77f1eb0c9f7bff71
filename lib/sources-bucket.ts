import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ENV } from '../functions/lambda/env.ts';
import type { AsofFunction } from './asof-function.ts';
import type { Access, SourcesBinding } from './store-binding.ts';

const S3_LOGS_USE_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

export interface SourcesBucketProps {
  /** The stage's resource name prefix: the bucket is `<prefix>-sources-<account>-<region>`. */
  prefix: string;
  /** Keep the buckets (and the files) when the stack goes away. Default: true. */
  retain?: boolean;
  /** How long S3 server access logs are kept. Default: 365 days. */
  accessLogRetention?: Duration;
}

/**
 * The official source files the ingest job reads (release points, manifests, rule texts): versioned, so a replaced
 * file's earlier bytes stay citable; encrypted (SSE-S3); TLS 1.2 or later only; no public access; every request logged
 * by S3 server access logging to a bucket of its own.
 */
export class SourcesBucket extends Construct implements SourcesBinding {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;
  /**
   * The bucket's name from the stage prefix and the pseudo-parameters of whichever stack uses it: a function in another
   * stack of the stage is granted on it without a cross-stack import, so its grant (and cdk-nag's finding on the object
   * wildcard) reads the same in every stage.
   */
  readonly bucketName: string;
  private readonly prefix: string;

  constructor(scope: Construct, id: string, props: SourcesBucketProps) {
    super(scope, id);
    // The log delivery service writes through a bucket policy, not an ACL, so both buckets keep ACLs disabled.
    this.node.setContext(S3_LOGS_USE_BUCKET_POLICY, true);
    const removalPolicy = props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const locked = {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
    };
    // Server access logs go to an SSE-S3 bucket (the logging service cannot write to SSE-KMS), never to the logged bucket.
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...locked,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: props.accessLogRetention ?? Duration.days(365) }],
    });
    this.prefix = props.prefix;
    this.bucketName = `${props.prefix}-sources-${Aws.ACCOUNT_ID}-${Aws.REGION}`;
    this.bucket = new Bucket(this, 'Bucket', {
      ...locked,
      bucketName: this.bucketName,
      versioned: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'sources/',
    });
  }

  /**
   * The bucket's name in the function's environment; a grant to list the bucket and read its files, or also to write
   * and delete them: named actions only, on the bucket and its objects.
   */
  bind(fn: AsofFunction, access: Access): void {
    this.grant(
      fn,
      '*',
      access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
    );
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${this.prefix}-sources-<AWS::AccountId>-<AWS::Region>/*]`,
      reason: 'The ingest job reads whichever source files an event names: any object of the sources bucket, and nothing outside it.',
    });
  }

  /**
   * As `bind`, but the objects granted are those below `folder/` alone; a writer may put them, never delete one (the
   * bucket is versioned: an object put again keeps its earlier bytes).
   */
  bindFolder(fn: AsofFunction, folder: string, access: Access): void {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(folder)) throw new Error(`sources folder '${folder}': lowercase letters, digits and hyphens`);
    this.grant(fn, `${folder}/*`, access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject']);
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${this.prefix}-sources-<AWS::AccountId>-<AWS::Region>/${folder}/*]`,
      reason: `The function reads (or writes) the files of one folder of the sources bucket, ${folder}/, whichever their names: nothing else of the bucket.`,
    });
  }

  private grant(fn: AsofFunction, objects: string, objectActions: string[]): void {
    fn.addEnvironment(ENV.sourcesBucket, this.bucketName);
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${this.bucketName}`;
    // Listing names no file's content; it lets a missing object answer 404 rather than 403.
    Grant.addToPrincipal({ grantee: fn.fn, actions: ['s3:ListBucket'], resourceArns: [bucketArn] });
    Grant.addToPrincipal({ grantee: fn.fn, actions: objectActions, resourceArns: [`${bucketArn}/${objects}`] });
  }
}
