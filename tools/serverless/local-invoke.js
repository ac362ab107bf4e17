/**
 * serverless plugin: makes `serverless invoke local -f <function> -p events/<file>.json` work
 * on a fresh clone with no second terminal. Before the handler runs it starts the parts of the
 * local stack (embedded database, local issuer) the environment lacks, points the function's
 * environment at them, and fills the event's ${LOCAL_TOKEN} / ${TODAY-N} placeholders; after
 * the invocation (or on error) it stops them so the command exits.
 */
export default class LocalInvokePlugin {
  constructor(serverless, options, { log }) {
    this.options = options;
    this.log = log;
    this.session = undefined;
    this.hooks = {
      'before:invoke:local:invoke': () => this.start(),
      'after:invoke:local:invoke': () => this.stop(),
      error: () => this.stop(),
    };
  }

  async start() {
    const { tsImport } = await import('tsx/esm/api');
    const { prepareLocalInvoke } = await tsImport('../local/invoke.ts', import.meta.url);
    this.session = await prepareLocalInvoke(this.options.data, process.env);
    Object.assign(process.env, this.session.env);
    this.options.data = this.session.event;
    if (Object.keys(this.session.env).length > 0) {
      this.log.verbose(`local stack: ${Object.keys(this.session.env).join(', ')} provided`);
    }
  }

  async stop() {
    const session = this.session;
    this.session = undefined;
    await session?.close();
  }
}
