import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../functions/lambda/env.ts';
import type { AsofFunction } from './asof-function.ts';
import type { StoreBinding } from './store-binding.ts';

export interface CourtListenerTokenProps {
  /**
   * The Secrets Manager secret holding the CourtListener API token as its plain string. The operator creates it (its
   * value never passes through CDK or the template); until it exists, a requested fallback answers `unavailable`.
   */
  secretName: string;
}

/** The shared CourtListener token of the case-law fallback: bound functions may read it, named in ENV.courtListenerSecret. */
export class CourtListenerToken extends Construct implements StoreBinding {
  readonly secret: ISecret;

  constructor(scope: Construct, id: string, props: CourtListenerTokenProps) {
    super(scope, id);
    this.secret = Secret.fromSecretNameV2(this, 'Secret', props.secretName);
  }

  bind(fn: AsofFunction): void {
    fn.addEnvironment(ENV.courtListenerSecret, this.secret.secretName);
    this.secret.grantRead(fn.fn);
  }
}
