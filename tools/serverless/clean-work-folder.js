/**
 * serverless plugin: every package starts from an empty esbuild work folder
 * (custom.esbuild.outputWorkFolder). serverless-esbuild bundles every function into it and zips
 * all it holds for each function, so a bundle left there (by `npm start`, which keeps its
 * folder while it watches, or by a run that was stopped) would ship in every zip: the bundle of
 * a function since removed, say. `serverless package` and `serverless deploy` (which packages
 * first) both pass here; it is listed before serverless-esbuild in serverless.yml, so it runs
 * before the bundling of the same step. Local commands (`offline`, `invoke local`) are left alone.
 */
import { rmSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

export default class CleanWorkFolderPlugin {
  constructor(serverless, options, { log }) {
    this.serverless = serverless;
    this.log = log;
    this.hooks = {
      'before:package:createDeploymentArtifacts': () => this.clean(),
    };
  }

  clean() {
    const { serviceDir, service } = this.serverless;
    const folder = service.custom?.esbuild?.outputWorkFolder ?? '.esbuild';
    const path = join(serviceDir, folder);
    const inside = relative(serviceDir, path);
    // Only a folder of the project, never the project itself or anything outside it.
    if (!inside || inside.startsWith('..') || isAbsolute(inside)) {
      throw new Error(
        `custom.esbuild.outputWorkFolder "${folder}" is not a folder inside the project: packaging empties it first`,
      );
    }
    rmSync(path, { recursive: true, force: true });
    this.log.verbose(`esbuild work folder ${inside} emptied before bundling`);
  }
}
