/**
 * The deployer's documented permissions (docs/deployer-policy.json, tools/release/deployer-policy.ts)
 * are exactly what deploying calls: every SDK operation of the release tool and of osls's deploy,
 * and what CloudFormation calls for each resource type; nothing documented that nothing calls. A
 * policy missing one action, or a template with a type the table lacks, is named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  missingActions,
  OSLS_FILES,
  RESOURCE_ACTIONS,
  sdkActionsIn,
  templateActions,
} from '../../../tools/release/deployer-policy';

const ROOT = join(import.meta.dirname, '../../..');
const policy = JSON.parse(readFileSync(join(ROOT, 'docs/deployer-policy.json'), 'utf8')) as {
  Statement: { Effect: string; Action: string[] }[];
};

const releaseTool = readdirSync(join(ROOT, 'tools/release'))
  .filter((file) => file.endsWith('.ts'))
  .flatMap((file) => sdkActionsIn(readFileSync(join(ROOT, 'tools/release', file), 'utf8')));
const osls = OSLS_FILES.flatMap((file) =>
  sdkActionsIn(readFileSync(join(ROOT, 'node_modules/osls', file), 'utf8')),
);
const resources = templateActions(Object.keys(RESOURCE_ACTIONS)).actions;

describe('docs/deployer-policy.json', () => {
  it('grants every operation the release tool calls (preflight, deploy, bake)', () => {
    expect(releaseTool).toEqual(expect.arrayContaining(['lambda:GetAccountSettings']));
    expect(missingActions(policy, releaseTool)).toEqual([]);
  });

  it('grants every operation of osls’s deploy, deploy list and rollback, termination protection too', () => {
    expect(osls).toEqual(
      expect.arrayContaining([
        'cloudformation:UpdateTerminationProtection',
        'cloudformation:CreateChangeSet',
        's3:PutObject',
      ]),
    );
    expect(missingActions(policy, osls)).toEqual([]);
  });

  it('grants what CloudFormation calls for each resource type of the templates', () => {
    expect(missingActions(policy, resources)).toEqual([]);
  });

  it('grants nothing that nothing calls', () => {
    const needed = new Set([...releaseTool, ...osls, ...resources]);
    const documented = policy.Statement.flatMap((statement) => statement.Action);
    expect(documented.filter((action) => !needed.has(action))).toEqual([]);
  });
});

describe('the checks', () => {
  it('name an action a policy lacks', () => {
    const without = {
      Statement: policy.Statement.map((statement) => ({
        ...statement,
        Action: statement.Action.filter((a) => a !== 'cloudformation:UpdateTerminationProtection'),
      })),
    };
    expect(missingActions(without, osls)).toEqual(['cloudformation:UpdateTerminationProtection']);
  });

  it('read wildcards and Deny as IAM does', () => {
    expect(
      missingActions({ Statement: [{ Effect: 'Allow', Action: 'lambda:Get*' }] }, [
        'lambda:GetFunction',
        'lambda:UpdateAlias',
      ]),
    ).toEqual(['lambda:UpdateAlias']);
    expect(
      missingActions({ Statement: [{ Effect: 'Deny', Action: ['s3:*'] }] }, ['s3:PutObject']),
    ).toEqual(['s3:PutObject']);
  });

  it('name a resource type the table lacks', () => {
    expect(templateActions(['AWS::Lambda::Alias', 'AWS::SQS::Queue']).unknownTypes).toEqual([
      'AWS::SQS::Queue',
    ]);
  });

  it('read the operations of a require and of an import, API Gateway by method and S3 by its own actions', () => {
    expect(
      sdkActionsIn(
        "const { S3Client, HeadBucketCommand, paginateListObjectsV2 } = require('@aws-sdk/client-s3');\n" +
          "import { GetDomainNameCommand, type APIGatewayClient } from '@aws-sdk/client-api-gateway';\n" +
          "const { Upload } = require('@aws-sdk/lib-storage');",
      ),
    ).toEqual(['apigateway:GET', 's3:AbortMultipartUpload', 's3:ListBucket', 's3:PutObject']);
  });
});
