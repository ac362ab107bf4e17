/**
 * An optional custom domain for the stage (docs/deployment.md, "Custom domain"): a regional
 * API Gateway domain name with TLS 1.2 on the brand's ACM certificate, mapped to the stage at
 * its root, so the API's address outlives the stack. The brand's DNS points the name at the
 * regional domain name the outputs give.
 */
import type { Resource } from './cloudformation';
import { fail, type RawSetting } from './settings';

export const DOMAIN_LOGICAL_ID = 'ApiGatewayDomainName';
export const BASE_PATH_MAPPING_LOGICAL_ID = 'ApiGatewayBasePathMapping';

export interface DomainSettings {
  readonly name: string;
  readonly certificateArn: string;
}

const HOSTNAME = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN =
  /^arn:aws(-[a-z]+)*:acm:([a-z0-9-]+):(\d{12}):certificate\/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/;

/** Both DOMAIN_NAME and DOMAIN_CERTIFICATE_ARN, or neither (no custom domain). */
export const domainSettings = (
  raw: { readonly DOMAIN_NAME: RawSetting; readonly DOMAIN_CERTIFICATE_ARN: RawSetting },
  region: string,
): DomainSettings | undefined => {
  const { DOMAIN_NAME: name, DOMAIN_CERTIFICATE_ARN: certificate } = raw;
  if (name.value === '' && certificate.value === '') return undefined;
  if (name.value !== '' && !HOSTNAME.test(name.value)) {
    return fail(
      name.variable,
      `is "${name.value}": expected a lower-case domain name such as api.brand.example`,
    );
  }
  const match = CERTIFICATE_ARN.exec(certificate.value);
  if (certificate.value !== '' && !match) {
    return fail(
      certificate.variable,
      `is "${certificate.value}": expected an ACM certificate ARN, arn:aws:acm:${region}:<account>:certificate/<id>`,
    );
  }
  if (match && match[2] !== region) {
    return fail(
      certificate.variable,
      `names a certificate in ${String(match[2])}: a regional domain of ${region} needs a certificate of ${region}`,
    );
  }
  if (certificate.value === '') {
    return fail(certificate.variable, `is unset: ${name.variable} needs its ACM certificate`);
  }
  if (name.value === '') {
    return fail(name.variable, `is unset: ${certificate.variable} is set, name its domain`);
  }
  return { name: name.value, certificateArn: certificate.value };
};

/** The domain name, its mapping to the stage, and the outputs for the brand's DNS record. */
export const customDomain = (
  domain: DomainSettings | undefined,
  { restApiId, stageId }: { restApiId: string; stageId: string },
): { resources: Record<string, Resource>; outputs: Record<string, unknown> } => {
  if (!domain) return { resources: {}, outputs: {} };
  return {
    resources: {
      [DOMAIN_LOGICAL_ID]: {
        Type: 'AWS::ApiGateway::DomainName',
        Properties: {
          DomainName: domain.name,
          RegionalCertificateArn: domain.certificateArn,
          EndpointConfiguration: { Types: ['REGIONAL'] },
          SecurityPolicy: 'TLS_1_2',
        },
      },
      [BASE_PATH_MAPPING_LOGICAL_ID]: {
        Type: 'AWS::ApiGateway::BasePathMapping',
        Properties: {
          DomainName: { Ref: DOMAIN_LOGICAL_ID },
          RestApiId: { Ref: restApiId },
          Stage: { Ref: stageId },
        },
      },
    },
    outputs: {
      ApiDomainName: {
        Description: 'The API’s custom domain',
        Value: { Ref: DOMAIN_LOGICAL_ID },
      },
      ApiDomainRegionalDomainName: {
        Description: 'Where the brand’s DNS record for the custom domain points (CNAME or alias)',
        Value: { 'Fn::GetAtt': [DOMAIN_LOGICAL_ID, 'RegionalDomainName'] },
      },
      ApiDomainRegionalHostedZoneId: {
        Description: 'The hosted zone of that regional domain name, for a Route 53 alias record',
        Value: { 'Fn::GetAtt': [DOMAIN_LOGICAL_ID, 'RegionalHostedZoneId'] },
      },
    },
  };
};
