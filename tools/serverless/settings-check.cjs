/**
 * custom.settingsCheck: refuses packaging with every missing or bad setting of the stage and
 * region at once, one line each and no stack trace (tools/generators/settings-check.ts, the
 * same list `npm run package -- --check` prints), and prints what packages but should be said.
 */
'use strict';

const { settingsOf, userError } = require('./settings.cjs');

module.exports = async ({ resolveVariable }) => {
  const { problems, warnings, scope } = await settingsOf(resolveVariable);
  for (const warning of warnings) process.stderr.write(`Warning: ${warning}\n`);
  if (problems.length > 0) {
    throw userError(
      `stage "${scope.stage}" in ${scope.region} cannot be packaged:\n${problems.map((line) => `    ${line}`).join('\n')}`,
    );
  }
  return { checked: 'every setting', warnings: warnings.length };
};
