import { Aws, RemovalPolicy } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  prefix: string;
  /** Where alarm notifications are e-mailed (the address must confirm the subscription). Default: no subscription. */
  email?: string;
}

const CLOUDWATCH = new ServicePrincipal('cloudwatch.amazonaws.com');

/**
 * The SNS topic a stage's alarms notify: encrypted with a key of its own, reachable over TLS only, open to the
 * stage's alarms and nothing else.
 *
 * Not the AWS-managed `alias/aws/sns` key: its policy cannot grant CloudWatch `kms:GenerateDataKey*`/`kms:Decrypt`,
 * so an alarm's action on such a topic fails ("CloudWatch Alarms does not have authorization to access the SNS topic
 * encryption key", https://repost.aws/knowledge-center/cloudwatch-configure-alarm-sns).
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: `${props.prefix}: encrypts the alarm notifications topic`,
      enableKeyRotation: true,
      // It encrypts notifications in flight only; nothing stored outlives the topic.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.key.grant(CLOUDWATCH, 'kms:Decrypt', 'kms:GenerateDataKey*');

    this.topic = new Topic(this, 'Topic', {
      topicName: `${props.prefix}-alarms`,
      displayName: `${props.prefix} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });
    // The topic policy replaces SNS's default one, so CloudWatch must be allowed explicitly; only this account's
    // alarms of this stage may publish.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'StageAlarmsPublish',
        effect: Effect.ALLOW,
        principals: [CLOUDWATCH],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:${props.prefix}-*` },
        },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }
}
