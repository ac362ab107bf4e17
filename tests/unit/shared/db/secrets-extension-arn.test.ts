/**
 * Which strings are full Secrets Manager secret ARNs, the only form the secrets extension is
 * given (shared/db/secrets-extension.ts, secretArnRegion).
 */
import { secretArnRegion } from '../../../../shared/db/secrets-extension';

describe('secretArnRegion', () => {
  it.each([
    ['arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal/db-AbC123', 'eu-central-1'],
    [
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:rds!db-0123abcd-4567-89ef-0123-456789abcdef-AbC123',
      'us-east-1',
    ],
    [
      'arn:aws:secretsmanager:ap-southeast-2:123456789012:secret:rds!cluster-0123abcd-4567-89ef-0123-456789abcdef-Zz9Yx8',
      'ap-southeast-2',
    ],
    ['arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:portal-db-AbC123', 'cn-north-1'],
    [
      'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:portal_db-AbC123',
      'us-gov-west-1',
    ],
  ])('reads the region of %s', (arn, region) => {
    expect(secretArnRegion(arn)).toBe(region);
  });

  it.each([
    // A partial ARN: no 6-character suffix.
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal/db',
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal-db-AbC12',
    // Another service or resource type.
    'arn:aws:ssm:eu-central-1:123456789012:secret:portal/db-AbC123',
    'arn:aws:secretsmanager:eu-central-1:123456789012:parameter:portal/db-AbC123',
    // A bad account.
    'arn:aws:secretsmanager:eu-central-1:12345678901:secret:portal/db-AbC123',
    'arn:aws:secretsmanager:eu-central-1:1234567890123:secret:portal/db-AbC123',
    'arn:aws:secretsmanager:eu-central-1:12345678901x:secret:portal/db-AbC123',
    // A bad region or partition.
    'arn:aws:secretsmanager::123456789012:secret:portal/db-AbC123',
    'arn:aws:secretsmanager:EU-CENTRAL-1:123456789012:secret:portal/db-AbC123',
    'arn:aws-eu:secretsmanager:eu-central-1:123456789012:secret:portal/db-AbC123',
    // Names, not ARNs.
    'portal/db',
    'portal/db-AbC123',
    'rds!db-0123abcd-4567-89ef-0123-456789abcdef',
    '',
    // Anything around a full ARN.
    ' arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal/db-AbC123',
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal/db-AbC123\n',
  ])('is undefined for %j, which is not a full secret ARN', (arn) => {
    expect(secretArnRegion(arn)).toBeUndefined();
  });
});
