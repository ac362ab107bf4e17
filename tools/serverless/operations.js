/**
 * serverless plugin: makes the packaged CloudFormation operable (docs/operations.md). Once osls
 * has compiled the template and merged serverless.yml's own resources into it (so the gateway
 * responses are there) and before the template is written, it adds the alarms, the stage this
 * template owns (throttling, tracing, access logs), the `live` alias API Gateway calls, the web
 * ACL, CodeDeploy, the custom domain and the tags on every taggable resource, from
 * the settings of custom.operations (tools/serverless/operations-settings.cjs). The logic is
 * tools/generators/operations.ts, loaded with tsx. Then it checks the whole template against what
 * AWS enforces at deploy time and cfn-lint does not see (tools/generators/invariants.ts), and fails
 * packaging with one line per problem. `serverless deploy` packages first, so it runs there too;
 * local commands (`offline`, `invoke local`) never package, and are left alone.
 */
export default class OperationsPlugin {
  constructor(serverless, options, { log }) {
    this.serverless = serverless;
    this.log = log;
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => this.addOperations(),
      // Stack tags only while osls creates and updates the stack: its step after the deploy
      // would otherwise patch the stage and delete the access log group.
      'before:aws:deploy:deploy:createStack': () => this.setStackTags(),
      'after:aws:deploy:deploy:updateStack': () => this.clearStackTags(),
      'before:rollback:rollback': () => this.setStackTags(),
      'after:rollback:rollback': () => this.clearStackTags(),
    };
  }

  /** provider.stackTags = service, stage and STACK_TAGS, which osls hands CloudFormation. */
  setStackTags() {
    const { provider } = this.serverless.service;
    refuseOslsStageHack(provider);
    const stackTags = this.serverless.service.custom?.operations?.stackTags;
    if (!stackTags) throw new Error('custom.operations holds no stackTags: see serverless.yml');
    provider.stackTags = { ...stackTags };
  }

  clearStackTags() {
    delete this.serverless.service.provider.stackTags;
  }

  async addOperations() {
    const { service, provider } = this.serverless.service;
    refuseOslsStageHack(provider);
    const { tsImport } = await import('tsx/esm/api');
    const { withOperations } = await tsImport('../generators/operations.ts', import.meta.url);
    const settings = this.serverless.service.custom?.operations?.settings;
    if (!settings) throw new Error('custom.operations holds no settings: see serverless.yml');
    const template = provider.compiledCloudFormationTemplate;
    const next = withOperations(template, settings, {
      service,
      logRetentionInDays: provider.logRetentionInDays,
    });
    // What the additions leave out goes (the release's hook, without a gradual release).
    for (const id of Object.keys(template.Resources)) {
      if (!Object.hasOwn(next.Resources, id)) Reflect.deleteProperty(template.Resources, id);
    }
    Object.assign(template.Resources, next.Resources);
    if (next.Outputs) template.Outputs = next.Outputs;
    const { refuseTemplateProblems } = await tsImport(
      '../generators/invariants.ts',
      import.meta.url,
    );
    refuseTemplateProblems(template);
    const alarms = Object.values(next.Resources).filter(
      ({ Type }) => Type === 'AWS::CloudWatch::Alarm',
    ).length;
    this.log.verbose(
      `operations: stage ${settings.stage} throttled at ${settings.throttle.rate}/s (burst ${settings.throttle.burst}), ${alarms} alarms, live aliases`,
    );
  }
}

/**
 * osls patches the stage through the SDK after `deploy` (lib/hack/update-stage.js) when any of
 * these is set, which would fight the stage the template owns, and, without provider.logs,
 * deletes the log group /aws/api-gateway/<service>-<stage>, the stage's access log: refused,
 * with what to do instead.
 */
const refuseOslsStageHack = (provider) => {
  const settings = [
    ['provider.logs.restApi', provider.logs?.restApi],
    ['provider.tracing.apiGateway', provider.tracing?.apiGateway],
    ['provider.apiGateway.metrics', provider.apiGateway?.metrics],
    ['provider.tags', provider.tags],
    ['provider.stackTags', provider.stackTags],
  ].filter(([, value]) => value != null);
  if (settings.length > 0) {
    throw new Error(
      `${settings.map(([name]) => name).join(', ')}: the stage is ApiGatewayStage in the template (tools/generators/operations.ts), and osls would patch it after deploy and delete its access log group; set the stage's properties there instead, and tags with STACK_TAGS (docs/operations.md)`,
    );
  }
};
