import { Annotations } from 'aws-cdk-lib';
import type { IConnectable, ISecurityGroup, IVpc, Port, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
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

/**
 * A bucket that can also be given one folder of itself: a function that writes only there (the US Code fetch writes
 * `olrc/`) is granted exactly that folder's objects.
 */
export interface SourcesBinding extends StoreBinding {
  bindFolder(fn: AsofFunction, folder: string, access: Access): void;
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

/**
 * Opens `port` of a store in the VPC to a function. Written as the function's rule towards the store, so that CDK puts
 * the ingress rule in the function's stack when the two are in different stacks: the stateful stack never refers to a
 * function's security group, which would make the two stacks depend on each other.
 */
export function allowFromFunction(fn: AsofFunction, store: IConnectable, port: Port, storeName: string): void {
  fn.fn.connections.allowTo(store, port, `${fn.fn.node.path} to ${storeName}`);
  // The egress half is not written: the function's group allows all outbound traffic, the store's ingress rule is the limit.
  Annotations.of(fn.fn).acknowledgeWarning('@aws-cdk/aws-ec2:ipv4IgnoreEgressRule', 'functions keep all outbound traffic allowed');
}
