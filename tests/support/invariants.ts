/**
 * tools/generators/invariants.ts over the templates `serverless package` writes, for the packaging
 * suites: what AWS enforces at deploy time and cfn-lint does not see, read back from the file.
 */
import { readFileSync } from 'node:fs';
import type { Template } from '../../tools/generators/cloudformation';
import { alarmsWithoutActions, templateProblems } from '../../tools/generators/invariants';

/**
 * Expects no problem in the template at `path`; the lines of its alarms that notify nobody, which
 * packaging does not refuse.
 */
export const expectInvariantsHold = (path: string): string[] => {
  const template = JSON.parse(readFileSync(path, 'utf8')) as Template;
  expect({ path, problems: templateProblems(template) }).toEqual({ path, problems: [] });
  return alarmsWithoutActions(template);
};
