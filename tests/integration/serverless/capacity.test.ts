/**
 * A morning at the portal against the packaged production template (tools/capacity/morning.ts,
 * docs/operations.md, "Throttling"): at the defaults, 500 owners opening the portal within a minute
 * are all served; one client sending 20 times an owner's share is refused alone, by the web ACL,
 * with CORS and Retry-After; OPTIONS is never limited below its GET; and whatever Lambda refuses
 * is a 503 the caller may retry, never a bare 500.
 */
import {
  expectPackaged,
  ofType,
  packageService,
  removeTemporary,
  type Template,
} from '../../support/packaging';
import {
  morningOwners,
  seeded,
  simulate,
  type Client,
  type Outcome,
} from '../../../tools/capacity/morning';
import type { Template as GeneratedTemplate } from '../../../tools/generators/cloudformation';

afterAll(removeTemporary);

const PATHS = [
  '/v1/plugins',
  '/v1/restaurants/{id}/dashboard',
  '/v1/restaurants/{id}/reports/orders/day',
];
/** The figures API_ROUTE_DURATION_MS is derived from (BENCHMARKS.md): warm p99, a cold answer. */
const DURATIONS = { warmMs: 3, coldMs: 100, clientMs: 30 };
const MINUTE = 60_000;

let packaged: Promise<Template> | undefined;
const production = () => {
  packaged ??= packageService().then((result) => {
    expectPackaged(result);
    return result.template();
  });
  return packaged;
};

/** The template's one resource of `type`. */
const onlyOf = (template: Template, type: string): Template['Resources'][string] => {
  const found = ofType(template, type);
  if (found.length !== 1) throw new Error(`${found.length} ${type} resources, expected one`);
  return found[0]![1];
};

const refusals = (outcome: Outcome, client?: (name: string) => boolean) =>
  [...outcome.refused]
    .filter(([name]) => client?.(name) ?? true)
    .flatMap(([name, refused]) => refused.map((refusal) => ({ client: name, ...refusal })));

describe('the production template at its defaults', () => {
  it.each([1, 2, 3, 4, 5])(
    'serves 500 owners opening the portal within a minute without refusing one request (seed %i)',
    async (seed) => {
      const template = (await production()) as unknown as GeneratedTemplate;
      const owners = morningOwners(500, MINUTE, seeded(seed), PATHS);
      const outcome = simulate(template, owners, DURATIONS);
      expect(outcome.requests).toBe(3000);
      expect(refusals(outcome)).toEqual([]);
    },
    120_000,
  );

  it('refuses a client sending 20 times an owner’s share, and nobody else, through the web ACL', async () => {
    const template = (await production()) as unknown as GeneratedTemplate;
    const owners = morningOwners(500, MINUTE, seeded(7), PATHS);
    // An owner's share: the 6 requests of opening the portal, in a minute. 20 times that for
    // five minutes, the web ACL's window: the dashboard and its preflight, once a second.
    const abusive: Client = {
      name: 'abusive',
      chains: Array.from({ length: 300 }, (_, second) => ({
        at: second * 1000,
        paths: [PATHS[1]!],
        preflight: true,
      })),
    };
    const outcome = simulate(template, [...owners, abusive], DURATIONS);
    expect(refusals(outcome, (name) => name !== 'abusive')).toEqual([]);
    // Past the rule's limit each preflight is refused, and its GET never sent.
    const acl = onlyOf(template as unknown as Template, 'AWS::WAFv2::WebACL');
    const limit = (
      acl.Properties.Rules as { Statement: { RateBasedStatement: { Limit: number } } }[]
    )[0]!.Statement.RateBasedStatement.Limit;
    expect(limit).toBeLessThan(600);
    const refused = refusals(outcome, (name) => name === 'abusive');
    expect(refused).toHaveLength((600 - limit) / 2);
    expect(new Set(refused.map(({ by }) => by))).toEqual(new Set(['waf']));
  }, 120_000);

  it('limits no OPTIONS route below its GET or PUT', async () => {
    const template = await production();
    const stage = onlyOf(template, 'AWS::ApiGateway::Stage');
    const settings = stage.Properties.MethodSettings as {
      ResourcePath: string;
      HttpMethod: string;
      ThrottlingRateLimit: number;
      ThrottlingBurstLimit: number;
    }[];
    const byRoute = new Map(settings.map((s) => [`${s.HttpMethod} ${s.ResourcePath}`, s]));
    const answering = settings.filter((s) => s.HttpMethod !== 'OPTIONS' && s.HttpMethod !== '*');
    expect(answering.length).toBeGreaterThan(0);
    for (const route of answering) {
      const preflight = byRoute.get(`OPTIONS ${route.ResourcePath}`);
      if (!preflight) throw new Error(`${route.ResourcePath} has no OPTIONS limits of its own`);
      expect(preflight.ThrottlingRateLimit).toBeGreaterThanOrEqual(route.ThrottlingRateLimit);
      expect(preflight.ThrottlingBurstLimit).toBeGreaterThanOrEqual(route.ThrottlingBurstLimit);
    }
  }, 120_000);

  it('answers what Lambda refuses, and every 429, with the contract’s body, CORS and Retry-After', async () => {
    const template = await production();
    const responses = new Map(
      ofType(template, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => [
        r.Properties.ResponseType,
        r.Properties,
      ]),
    );
    const integration = responses.get('INTEGRATION_FAILURE');
    expect(integration?.StatusCode).toBe('503');
    expect(integration?.ResponseParameters).toEqual({
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.Retry-After': "'1'",
    });
    expect(
      JSON.parse((integration?.ResponseTemplates as Record<string, string>)['application/json']!),
    ).toEqual({ state: 'ERROR', code: 'INTERNAL_ERROR', message: 'Unknown error' });
    expect(responses.get('THROTTLED')?.ResponseParameters).toEqual({
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.Retry-After': "'1'",
    });
    const acl = onlyOf(template, 'AWS::WAFv2::WebACL');
    const [rule] = acl.Properties.Rules as {
      Action: { Block: { CustomResponse: { ResponseCode: number; ResponseHeaders: unknown } } };
    }[];
    expect(rule?.Action.Block.CustomResponse).toMatchObject({
      ResponseCode: 429,
      ResponseHeaders: [
        { Name: 'Access-Control-Allow-Origin', Value: '*' },
        { Name: 'Retry-After', Value: '60' },
      ],
    });
  }, 120_000);
});
