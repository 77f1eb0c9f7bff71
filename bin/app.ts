/** The CDK app: one set of stacks per stage, chosen with `-c stage=dev|prod`. */
import { App } from 'aws-cdk-lib';
import { StatefulStack } from '../lib/stateful-stack.ts';
import { STAGES } from './stages.ts';

const app = new App();
const stageName = String(app.node.tryGetContext('stage') ?? 'dev');
const config = STAGES[stageName];
if (!config) throw new Error(`unknown stage '${stageName}' (known: ${Object.keys(STAGES).join(', ')})`);

new StatefulStack(app, `${config.prefix}-stateful`, {
  prefix: config.prefix,
  retainData: config.retainData,
  ...(config.account && config.region && { env: { account: config.account, region: config.region } }),
});
