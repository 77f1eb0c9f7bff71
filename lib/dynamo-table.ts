import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_ENV } from '../functions/lambda/env.ts';
import type { TableSpec } from '../functions/stores/dynamodb/tables.ts';
import type { AsofFunction } from './asof-function.ts';
import type { Access, StoreBinding } from './store-binding.ts';

export interface DynamoTableProps {
  /** The table's shape, shared with the adapter and the local runtime (functions/stores/dynamodb/tables.ts). */
  spec: TableSpec;
  tableName: string;
  /** Keep the table when the stack goes away. Default: true. */
  retain?: boolean;
}

/** A DynamoDB table from the adapter's own table spec: on-demand, point-in-time recovery, TTL where the spec has one. */
export class DynamoTable extends Construct implements StoreBinding {
  readonly table: TableV2;
  readonly spec: TableSpec;

  constructor(scope: Construct, id: string, props: DynamoTableProps) {
    super(scope, id);
    const { spec } = props;
    this.spec = spec;
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

  /** The table's name in the function's environment (TABLE_ENV) and a grant of reads, or of reads and writes. */
  bind(fn: AsofFunction, access: Access): void {
    fn.addEnvironment(TABLE_ENV[this.spec.suffix], this.table.tableName);
    if (access === 'read') this.table.grantReadData(fn.fn);
    else this.table.grantReadWriteData(fn.fn);
  }
}
