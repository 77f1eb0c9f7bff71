import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { AsofFunction } from './asof-function.ts';

export type Access = 'read' | 'readwrite';

/** Where a function must run to reach a store (a store inside the VPC). */
export interface FunctionNetwork {
  vpc: IVpc;
  subnets: SubnetSelection;
  /** Security groups the function joins; default: one of its own, all outbound allowed. */
  securityGroups?: ISecurityGroup[];
}

/**
 * A store a function can be given: `bind` sets the environment the function's wiring reads (functions/lambda/env.ts),
 * the IAM grant and the network path together, so that none of the three can drift from the others.
 */
export interface StoreBinding {
  /** Set when the function must be placed in a VPC to reach the store. */
  readonly network?: FunctionNetwork;
  bind(fn: AsofFunction, access: Access): void;
}

/** The stores of a stage, as bindings: the four tables always; search, the case-law replica and the fallback's secret when the stage has them. */
export interface StageBindings {
  versions: StoreBinding;
  accounts: StoreBinding;
  meters: StoreBinding;
  ops: StoreBinding;
  search?: StoreBinding;
  caselaw?: StoreBinding;
  fallback?: StoreBinding;
}
