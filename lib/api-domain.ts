import { BasePathMapping, DomainName, EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import { API_STAGE } from './law-api.ts';

/** A stage's own address: the site at its root, the API at `/v1`. */
export interface StageDomain {
  /** e.g. asof.example.org */
  name: string;
  /** An ACM certificate for the name, in the stage's region (a regional endpoint). */
  certificateArn: string;
  /** The Route 53 zone to write the name's alias record in; default: none (the record is the operator's). */
  hostedZone?: { id: string; name: string };
}

export interface ApiDomainProps {
  domain: StageDomain;
  /** The versioned API: mapped at `/v1`, its stage. */
  api: RestApi;
  /** The public site: mapped at the root. */
  site: RestApi;
}

/**
 * The stage's custom domain: `https://<name>/v1/…` is the API's v1 stage and `https://<name>/law/…` the site's
 * permalink pages, so `{base_url}` is `{site_url}/v1` as the specification writes them. TLS 1.2 at least, regional.
 */
export class ApiDomain extends Construct {
  readonly domainName: DomainName;
  readonly siteUrl: string;
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    checkDomain(props.domain);
    this.domainName = new DomainName(this, 'Domain', {
      domainName: props.domain.name,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, 'ApiMapping', {
      domainName: this.domainName,
      restApi: props.api,
      stage: props.api.deploymentStage,
      basePath: API_STAGE,
    });
    new BasePathMapping(this, 'SiteMapping', { domainName: this.domainName, restApi: props.site, stage: props.site.deploymentStage });
    if (props.domain.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: props.domain.hostedZone.id,
        zoneName: props.domain.hostedZone.name,
      });
      new ARecord(this, 'Alias', {
        zone,
        recordName: props.domain.name,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domainName)),
      });
    }
    this.siteUrl = `https://${props.domain.name}`;
    this.baseUrl = `${this.siteUrl}/${API_STAGE}`;
  }
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ACM_CERTIFICATE = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/;

/** A stage's domain as configured, refused at synth with what is wrong (a deployment would fail later and slower). */
function checkDomain(domain: StageDomain): void {
  if (!HOSTNAME.test(domain.name))
    throw new Error(`domain.name must be a lower-case host name such as asof.example.org, without scheme or path (got '${domain.name}')`);
  if (!ACM_CERTIFICATE.test(domain.certificateArn)) {
    throw new Error(
      `domain.certificateArn must be an ACM certificate ARN, arn:aws:acm:<region>:<account>:certificate/<id> (got '${domain.certificateArn}')`,
    );
  }
  const zone = domain.hostedZone?.name.replace(/\.$/, '');
  if (zone !== undefined && domain.name !== zone && !domain.name.endsWith(`.${zone}`)) {
    throw new Error(`domain.name ${domain.name} is not in the hosted zone ${zone}`);
  }
}
