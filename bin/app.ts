/** The CDK app: one set of stacks per stage, chosen with `-c stage=dev|prod`, checked by cdk-nag's AWS Solutions rules. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { defineStage } from './stage.ts';
import { STAGES } from './stages.ts';

const app = new App();
const stageName = String(app.node.tryGetContext('stage') ?? 'dev');
const config = STAGES[stageName];
if (!config) throw new Error(`unknown stage '${stageName}' (known: ${Object.keys(STAGES).join(', ')})`);

defineStage(app, config);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
