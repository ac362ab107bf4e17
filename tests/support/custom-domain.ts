/**
 * What a template holds for a custom domain (tools/generators/domain.ts), as the unit tests of the build
 * and the packaging suite both expect it.
 */

/** The regional domain `name` on its ACM `certificate`, its mapping to the stage, its outputs. */
export const customDomain = (name: string, certificate: string) => ({
  domain: {
    Type: 'AWS::ApiGateway::DomainName',
    Properties: {
      DomainName: name,
      RegionalCertificateArn: certificate,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    },
  },
  mapping: {
    Type: 'AWS::ApiGateway::BasePathMapping',
    Properties: {
      DomainName: { Ref: 'ApiGatewayDomainName' },
      RestApiId: { Ref: 'ApiGatewayRestApi' },
      Stage: { Ref: 'ApiGatewayStage' },
    },
  },
  /** For the brand's DNS record. */
  outputs: {
    ApiDomainRegionalDomainName: {
      Value: { 'Fn::GetAtt': ['ApiGatewayDomainName', 'RegionalDomainName'] },
    },
    ApiDomainRegionalHostedZoneId: {
      Value: { 'Fn::GetAtt': ['ApiGatewayDomainName', 'RegionalHostedZoneId'] },
    },
  },
});
