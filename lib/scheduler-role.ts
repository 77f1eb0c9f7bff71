import { Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

export interface SchedulerRoleProps {
  /** What the schedules that assume it start, for the role's description: `the probe job`. */
  starts: string;
}

/**
 * The role EventBridge Scheduler assumes to start a job: only this account's schedules in the default group may
 * assume it (the confused-deputy guard the scheduler documents). The target's grants are added by the target.
 */
export class SchedulerRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SchedulerRoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const group = stack.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' });
    const principal = new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': group } },
    });
    this.role = new Role(this, 'Role', { assumedBy: principal, description: `EventBridge Scheduler: starts ${props.starts}` });
  }
}
