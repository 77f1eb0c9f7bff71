import { Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLES, tableNames } from '../functions/stores/dynamodb/tables.ts';
import { type CaseLawCapacity, CaseLawDatabase } from './caselaw-database.ts';
import { DynamoTable } from './dynamo-table.ts';
import { StageNetwork, type StageNetworkProps } from './network.ts';
import { type SearchCapacity, SearchDomain } from './search-domain.ts';
import { SourcesBucket } from './sources-bucket.ts';

export interface StatefulStackProps extends StackProps {
  prefix: string;
  /** Keep data when the stack is deleted. Default: true. */
  retainData?: boolean;
  /** The VPC's zones and NAT gateways. Default: StageNetwork's (2 zones, 1 NAT gateway). */
  network?: Pick<StageNetworkProps, 'maxAzs' | 'natGateways'>;
  /** Aurora's capacity, backups and deletion protection. Default: CaseLawDatabase's (0.5–2 ACU, no reader). */
  caselaw?: CaseLawCapacity;
  /** The search domain's nodes. Default: SearchDomain's (one t3.small.search, no zone awareness). */
  search?: SearchCapacity;
  /** How long the stores' and the VPC's logs are kept. Default: one month. */
  logRetention?: RetentionDays;
}

/** The stateful resources of a stage, in a stack of their own; construct ids never change (stable logical ids). */
export class StatefulStack extends Stack {
  readonly tables: Record<keyof typeof TABLES, DynamoTable>;
  readonly network: StageNetwork;
  readonly caselaw: CaseLawDatabase;
  readonly search: SearchDomain;
  readonly sources: SourcesBucket;

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
    const logRetention = props.logRetention;
    this.network = new StageNetwork(this, 'Network', { ...props.network, ...(logRetention && { flowLogRetention: logRetention }) });
    const stores = { prefix: props.prefix, network: this.network, retain, ...(logRetention && { logRetention }) };
    // The construct id is the cluster's logical id, kept as first deployed (renaming it would replace the database).
    this.caselaw = new CaseLawDatabase(this, 'CaselawDatabase', { ...stores, ...props.caselaw });
    this.search = new SearchDomain(this, 'SearchDomain', { ...stores, ...props.search });
    this.sources = new SourcesBucket(this, 'SourcesBucket', { prefix: props.prefix, retain });
  }
}
