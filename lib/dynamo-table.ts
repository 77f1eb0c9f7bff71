import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { TableSpec } from '../functions/stores/dynamodb/tables.ts';

export interface DynamoTableProps {
  /** The table's shape, shared with the adapter and the local runtime (functions/stores/dynamodb/tables.ts). */
  spec: TableSpec;
  tableName: string;
  /** Keep the table when the stack goes away. Default: true. */
  retain?: boolean;
}

/** A DynamoDB table from the adapter's own table spec: on-demand, point-in-time recovery, TTL where the spec has one. */
export class DynamoTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: DynamoTableProps) {
    super(scope, id);
    const { spec } = props;
    this.table = new TableV2(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: spec.partitionKey.name, type: AttributeType.STRING },
      sortKey: { name: spec.sortKey.name, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      ...(spec.timeToLiveAttribute && { timeToLiveAttribute: spec.timeToLiveAttribute }),
      removalPolicy: props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }
}
