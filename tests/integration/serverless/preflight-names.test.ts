/**
 * The preflight's fixed names (tools/release/preflight-names.ts's stageResourceNames), which it
 * derives before anything is packaged, held to the templates packaging writes: every name a
 * packaged template gives a resource itself is in the list, and the list holds nothing else. Once
 * with every setting that adds a named resource on (production: alarms, the web ACL, CodeDeploy,
 * a custom domain) and once with them off (dev).
 */
import { refOf } from '../../../tools/generators/cloudformation';
import { serverlessFunctions } from '../../../tools/generators/serverless';
import { stageOperations, stageResourceNames } from '../../../tools/release/preflight-names';
import {
  expectPackaged,
  packageService,
  PACKAGING_ENV,
  removeTemporary,
  type Template,
} from '../../support/packaging';

afterAll(removeTemporary);

/**
 * Properties ending in `Name` that name nothing unique in the account and region, with why.
 * Any other such property holding a literal is a fixed name the preflight must know.
 */
const NOT_FIXED: Readonly<Record<string, string>> = {
  'AWS::ApiGateway::RestApi Name': 'API Gateway allows several APIs of one name',
  'AWS::ApiGateway::Stage StageName': 'unique within its REST API only',
  'AWS::Lambda::Alias Name': 'unique within its function only',
  'AWS::CloudWatch::Alarm MetricName': 'names the metric watched',
  'AWS::CodeDeploy::DeploymentGroup DeploymentConfigName': 'names a predefined configuration',
};

/** A name as a template gives it: a string, or an Fn::Join of strings and `Ref AWS::Region`. */
const literal = (value: unknown, region: string): string | undefined => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: unknown } | null)?.['Fn::Join'];
  if (!Array.isArray(join) || typeof join[0] !== 'string' || !Array.isArray(join[1])) {
    return undefined;
  }
  const parts = (join[1] as unknown[]).map((part) =>
    refOf(part) === 'AWS::Region' ? region : part,
  );
  return parts.every((part) => typeof part === 'string') ? parts.join(join[0]) : undefined;
};

/** Every `<type> <name>` the template fixes itself, in `region`. */
const fixedNamesOf = (template: Template, region: string): string[] =>
  Object.values(template.Resources).flatMap((resource) =>
    Object.entries(resource.Properties)
      .filter(([key]) => key.endsWith('Name') && !(`${resource.Type} ${key}` in NOT_FIXED))
      .flatMap(([, value]) => {
        const name = literal(value, region);
        return name === undefined ? [] : [`${resource.Type} ${name}`];
      }),
  );

const CASES: { stage: string; portal: boolean; env: Record<string, string> }[] = [
  {
    stage: 'production',
    portal: true,
    env: {
      DOMAIN_NAME_PRODUCTION: 'api.brand.example',
      DOMAIN_CERTIFICATE_ARN_PRODUCTION_EU_WEST_1:
        'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0',
    },
  },
  {
    stage: 'dev',
    portal: false,
    env: {
      JWKS_URL: 'https://keys.example/dev/v2/jwks.json',
      JWT_ISSUER: 'https://portal.example/dev',
      DATABASE_URL: 'postgres://db-dev.example:5432/reports',
      DATABASE_SECRET_ARN:
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/dev/database-DeV456',
    },
  },
];

describe('the preflight’s fixed names against packaged templates', () => {
  it.each(CASES)(
    'names exactly what the template of $stage fixes',
    async ({ stage, portal, env }) => {
      // Arrange
      const region = 'eu-west-1';
      const { settings } = stageOperations({ ...PACKAGING_ENV, ...env }, { stage, region, portal });
      const derived = stageResourceNames(
        {
          service: 'portal-service-api',
          stage,
          region,
          functions: Object.keys(serverlessFunctions()),
        },
        settings,
      );

      // Act
      const packaged = await packageService({ stage, region, env });

      // Assess
      expectPackaged(packaged);
      const fixed = fixedNamesOf(packaged.template(), region);
      expect(fixed.length).toBeGreaterThan(0);
      expect(derived.map(({ type, name }) => `${type} ${name}`).sort()).toEqual(fixed.sort());
    },
    120_000,
  );
});
