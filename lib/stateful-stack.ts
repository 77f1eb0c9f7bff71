import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { TABLES, tableNames } from '../functions/stores/dynamodb/tables.ts';
import { DynamoTable } from './dynamo-table.ts';

export interface StatefulStackProps extends StackProps {
  prefix: string;
  /** Keep data when the stack is deleted. Default: true. */
  retainData?: boolean;
}

/** The stateful resources of a stage, in a stack of their own; construct ids never change (stable logical ids). */
export class StatefulStack extends Stack {
  readonly tables: Record<keyof typeof TABLES, DynamoTable>;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const names = tableNames(props.prefix);
    const retain = props.retainData ?? true;
    this.tables = {
      versions: new DynamoTable(this, 'VersionsTable', { spec: TABLES.versions, tableName: names.versions, retain }),
      accounts: new DynamoTable(this, 'AccountsTable', { spec: TABLES.accounts, tableName: names.accounts, retain }),
      meters: new DynamoTable(this, 'MetersTable', { spec: TABLES.meters, tableName: names.meters, retain }),
      ops: new DynamoTable(this, 'OpsTable', { spec: TABLES.ops, tableName: names.ops, retain }),
    };
  }
}
