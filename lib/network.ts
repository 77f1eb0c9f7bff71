import { RemovalPolicy } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionNetwork } from './store-binding.ts';

export interface StageNetworkProps {
  /** Availability zones. Default: 2 (the fewest Aurora, RDS Proxy and a zone-aware search domain accept). */
  maxAzs?: number;
  /** NAT gateways, at least 1: one is cheap but its zone is a single point of egress; one per zone survives a zone. Default: 1. */
  natGateways?: number;
  /** How long the VPC flow logs are kept. Default: one month. */
  flowLogRetention?: RetentionDays;
}

/**
 * The VPC of a stage: public subnets (the NAT gateways), private subnets with egress for the functions (they call
 * CourtListener, X-Ray and Secrets Manager through NAT; DynamoDB and S3 through gateway endpoints, which cost nothing
 * and keep that traffic off the NAT), and isolated subnets for the data stores (Aurora, RDS Proxy, OpenSearch).
 * Every flow is logged to CloudWatch Logs.
 */
export class StageNetwork extends Construct {
  readonly vpc: Vpc;
  /** Where functions that reach a store in the VPC run. */
  readonly functions: FunctionNetwork;
  /** Where the data stores live: no route to or from the internet. */
  readonly dataSubnets: SubnetSelection;

  constructor(scope: Construct, id: string, props: StageNetworkProps = {}) {
    super(scope, id);
    const maxAzs = props.maxAzs ?? 2;
    const natGateways = props.natGateways ?? 1;
    if (!Number.isInteger(natGateways) || natGateways < 1 || natGateways > maxAzs) {
      throw new Error(`natGateways must be between 1 and the ${maxAzs} zones (functions need egress), not ${natGateways}`);
    }
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs,
      natGateways,
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'functions', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
        { name: 'data', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
      gatewayEndpoints: {
        DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: GatewayVpcEndpointAwsService.S3 },
      },
    });
    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: props.flowLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.vpc.addFlowLog('FlowLog', { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.ALL });
    this.functions = { vpc: this.vpc, subnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS } };
    this.dataSubnets = { subnetType: SubnetType.PRIVATE_ISOLATED };
  }
}
