/**
 * An optional regional AWS WAF web ACL on the stage (docs/operations.md, "Per-client limit"):
 * one rate-based rule that blocks a client IP over WAF_RATE_LIMIT requests in five minutes
 * with the service's 429 body, beside the stage's own throttling, which every caller shares.
 */
import type { Resource } from './cloudformation';

export const WAF_LOGICAL_ID = 'ApiGatewayWebAcl';
export const WAF_ASSOCIATION_LOGICAL_ID = 'ApiGatewayWebAclAssociation';
/** The rate rule's name, also its metric's `Rule` dimension. */
export const WAF_RATE_RULE = 'per-client-rate';

export interface WafSettings {
  readonly enabled: boolean;
  /** Requests one IP may send in five minutes before it is blocked. */
  readonly rateLimit: number;
}

const TOO_MANY_REQUESTS =
  '{"state":"ERROR","code":"TOO_MANY_REQUESTS","message":"Too many requests"}';

/** The web ACL named `name` and its association with the stage, or nothing when off. */
export const webAcl = (
  settings: WafSettings,
  { name, restApiId, stageId }: { name: string; restApiId: string; stageId: string },
): Record<string, Resource> => {
  if (!settings.enabled) return {};
  const visibility = (metricName: string) => ({
    SampledRequestsEnabled: true,
    CloudWatchMetricsEnabled: true,
    MetricName: metricName,
  });
  return {
    [WAF_LOGICAL_ID]: {
      Type: 'AWS::WAFv2::WebACL',
      Properties: {
        Name: name,
        Scope: 'REGIONAL',
        Description: 'Per-client rate limit of the API stage: docs/operations.md',
        DefaultAction: { Allow: {} },
        CustomResponseBodies: {
          'too-many-requests': { ContentType: 'APPLICATION_JSON', Content: TOO_MANY_REQUESTS },
        },
        Rules: [
          {
            Name: WAF_RATE_RULE,
            Priority: 0,
            Statement: {
              RateBasedStatement: {
                Limit: settings.rateLimit,
                AggregateKeyType: 'IP',
                EvaluationWindowSec: 300,
              },
            },
            Action: {
              Block: {
                CustomResponse: {
                  ResponseCode: 429,
                  CustomResponseBodyKey: 'too-many-requests',
                  // As the gateway's own 429 (serverless.yml's gateway responses); the rule
                  // looks back five minutes, so a blocked client may try again in one.
                  ResponseHeaders: [
                    { Name: 'Access-Control-Allow-Origin', Value: '*' },
                    { Name: 'Retry-After', Value: '60' },
                  ],
                },
              },
            },
            VisibilityConfig: visibility(WAF_RATE_RULE),
          },
        ],
        VisibilityConfig: visibility(name),
      },
    },
    [WAF_ASSOCIATION_LOGICAL_ID]: {
      Type: 'AWS::WAFv2::WebACLAssociation',
      Properties: {
        ResourceArn: {
          'Fn::Sub': `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/restapis/\${${restApiId}}/stages/\${${stageId}}`,
        },
        WebACLArn: { 'Fn::GetAtt': [WAF_LOGICAL_ID, 'Arn'] },
      },
    },
  };
};

/** The blocked-requests alarm's metric: the rate rule's BlockedRequests in the region. */
export const wafBlockedMetric = (name: string) => ({
  Namespace: 'AWS/WAFV2',
  MetricName: 'BlockedRequests',
  Dimensions: [
    { Name: 'WebACL', Value: name },
    { Name: 'Region', Value: { Ref: 'AWS::Region' } },
    { Name: 'Rule', Value: WAF_RATE_RULE },
  ],
});
