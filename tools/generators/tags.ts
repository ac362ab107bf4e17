/**
 * Tags on the stack and on every taggable resource of the template (docs/deployment.md,
 * "Tags"): the service's own (`service`, `stage`) and the brand's from STACK_TAGS, for an
 * account whose tag policy requires them.
 */
import type { Resource } from './cloudformation';
import { fail, type RawSetting } from './settings';

/**
 * The resource types this template holds whose CloudFormation schema has a `Tags` list of
 * `{ Key, Value }` (tests/integration/serverless/operations.test.ts checks every packaged
 * resource against cfn-lint's schemas, so a type missing here fails there).
 */
export const TAGGABLE_TYPES: readonly string[] = [
  'AWS::ApiGateway::DomainName',
  'AWS::ApiGateway::RestApi',
  'AWS::ApiGateway::Stage',
  'AWS::CloudWatch::Alarm',
  'AWS::CloudWatch::Dashboard',
  'AWS::CodeDeploy::Application',
  'AWS::CodeDeploy::DeploymentGroup',
  'AWS::Events::Rule',
  'AWS::IAM::Role',
  'AWS::Lambda::Function',
  'AWS::Logs::LogGroup',
  'AWS::S3::Bucket',
  'AWS::WAFv2::WebACL',
];

/**
 * Regions whose CloudFormation schema of a type in TAGGABLE_TYPES has no `Tags` yet: there the
 * type is left untagged (cfn-lint's schemas for the region say which).
 */
export const UNTAGGABLE_IN: Readonly<Record<string, readonly string[]>> = {
  'AWS::CloudWatch::Dashboard': ['me-central-1'],
};

/** The tag keys the service sets itself. */
export const OWN_TAG_KEYS: readonly string[] = ['service', 'stage'];
/** CloudFormation's limit of stack tags. */
const TAGS_MAX = 50;
const TAG_KEY = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$/u;
const TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$/u;

const pairs = ({ variable, value }: RawSetting): [string, unknown][] => {
  if (value.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return fail(variable, 'is not valid JSON: expected {"key":"value",…} or key=value,…');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return fail(variable, 'expected a JSON object {"key":"value",…}');
    }
    return Object.entries(parsed);
  }
  return value.split(',').map((pair) => {
    const at = pair.indexOf('=');
    if (at === -1) return fail(variable, `holds "${pair}": expected key=value`);
    return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
  });
};

/** The tags of STACK_TAGS, checked: JSON `{"key":"value"}` or `key=value,key=value`. */
export const stackTagsSetting = (raw: RawSetting): Readonly<Record<string, string>> => {
  const { variable, value } = raw;
  if (value === '') return {};
  const tags: Record<string, string> = {};
  for (const [key, tagValue] of pairs(raw)) {
    if (typeof tagValue !== 'string') {
      return fail(variable, `gives "${key}" a ${typeof tagValue}: tag values are strings`);
    }
    if (!TAG_KEY.test(key) || !TAG_VALUE.test(tagValue)) {
      return fail(
        variable,
        `holds "${key}"="${tagValue}": keys of 1-128 and values of up to 256 letters, digits, spaces and _ . : / = + - @`,
      );
    }
    if (key.toLowerCase().startsWith('aws:')) {
      return fail(variable, `holds "${key}": the aws: prefix is reserved for AWS`);
    }
    if (OWN_TAG_KEYS.includes(key.toLowerCase())) {
      return fail(
        variable,
        `holds "${key}": the service sets ${OWN_TAG_KEYS.join(' and ')} itself`,
      );
    }
    if (Object.keys(tags).some((k) => k.toLowerCase() === key.toLowerCase())) {
      return fail(variable, `holds "${key}" twice`);
    }
    tags[key] = tagValue;
  }
  if (Object.keys(tags).length + OWN_TAG_KEYS.length > TAGS_MAX) {
    return fail(
      variable,
      `holds ${Object.keys(tags).length} tags: at most ${TAGS_MAX - OWN_TAG_KEYS.length}`,
    );
  }
  return tags;
};

/** The service's own tags and the brand's. */
export const serviceTags = (
  service: string,
  stage: string,
  extra: Readonly<Record<string, string>>,
): Record<string, string> => ({ service, stage, ...extra });

/**
 * Every resource of a taggable type in `region` with `tags` added to its own (ours win on the
 * same key); returns only the resources changed.
 */
export const withTags = (
  resources: Readonly<Record<string, Resource>>,
  tags: Readonly<Record<string, string>>,
  region: string,
): Record<string, Resource> => {
  const ours = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  const changed: Record<string, Resource> = {};
  for (const [id, resource] of Object.entries(resources)) {
    if (!TAGGABLE_TYPES.includes(resource.Type)) continue;
    if (UNTAGGABLE_IN[resource.Type]?.includes(region)) continue;
    const existing = (resource.Properties?.Tags ?? []) as { Key: string }[];
    changed[id] = {
      ...resource,
      Properties: {
        ...resource.Properties,
        Tags: [...existing.filter(({ Key }) => !(Key in tags)), ...ours],
      },
    };
  }
  return changed;
};
