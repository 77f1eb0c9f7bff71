import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ENV } from '../functions/lambda/env.ts';
import type { AsofFunction } from './asof-function.ts';
import type { Access, StoreBinding } from './store-binding.ts';

const S3_LOGS_USE_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

export interface SourcesBucketProps {
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
export class SourcesBucket extends Construct implements StoreBinding {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: SourcesBucketProps = {}) {
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
    this.bucket = new Bucket(this, 'Bucket', { ...locked, versioned: true, serverAccessLogsBucket: this.accessLogs, serverAccessLogsPrefix: 'sources/' });
  }

  /** The bucket's name in the function's environment; a grant to read the files, or to read and write them. */
  bind(fn: AsofFunction, access: Access): void {
    fn.addEnvironment(ENV.sourcesBucket, this.bucket.bucketName);
    if (access === 'read') this.bucket.grantRead(fn.fn);
    else this.bucket.grantReadWrite(fn.fn);
  }
}
