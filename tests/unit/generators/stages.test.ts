/**
 * tools/generators/stages.ts: each stage's rules from serverless.yml's custom.stages, a stage it
 * does not name taking `default`, and a malformed table refused naming the key.
 */
import { stageRulesOf, stageRulesOrProblem } from '../../../tools/generators/stages';
import { readReleaseConfig } from '../../../tools/release/regions';

const { stages } = readReleaseConfig();

describe('stageRulesOf', () => {
  it('reads serverless.yml’s production as guarded and verifying the database, with its defaults', () => {
    expect(stageRulesOf(stages, 'production')).toMatchObject({
      entry: 'production',
      guarded: true,
      verifyDatabaseTls: true,
      settings: expect.objectContaining({ ALARMS: 'true', WAF: 'true' }) as unknown,
    });
  });

  it('gives a stage the table does not name its default entry', () => {
    expect(stageRulesOf(stages, 'qa')).toMatchObject({
      entry: 'default',
      guarded: false,
      verifyDatabaseTls: true,
    });
    expect(stageRulesOf(stages, 'dev').verifyDatabaseTls).toBe(false);
  });

  it('reads a function’s timeout and memory', () => {
    const table = { default: { functions: { dishes: { timeout: 15, memorySize: 1024 } } } };
    expect(stageRulesOf(table, 'qa').functions).toEqual({
      dishes: { timeout: 15, memorySize: 1024 },
    });
  });

  it.each([
    [{}, 'custom.stages.default is missing'],
    [{ default: { guarded: 'yes' } }, 'custom.stages.default.guarded must be true or false'],
    [
      { default: { settings: { NO_SUCH: 1 } } },
      'custom.stages.default.settings.NO_SUCH is not a setting',
    ],
    [{ default: { settings: { ALARMS: [true] } } }, 'must be a string, a number or true/false'],
    [{ default: { alarms: true } }, 'custom.stages.default.alarms: expected guarded'],
    [
      { default: { functions: { dishes: { timeout: 901 } } } },
      'timeout must be a whole number from 1 to 900',
    ],
    [{ default: { functions: { dishes: { memory: 128 } } } }, 'only timeout and memorySize'],
  ])('refuses %j, naming the key', (table, message) => {
    expect(() => stageRulesOf(table, 'qa')).toThrow(message);
  });
});

describe('stageRulesOrProblem', () => {
  it('reads a malformed table as the strictest rules, with the problem in one line', () => {
    expect(stageRulesOrProblem({ default: { guarded: 1 } }, 'qa')).toEqual({
      rules: { entry: 'qa', guarded: true, verifyDatabaseTls: true, settings: {}, functions: {} },
      problem: 'serverless.yml: custom.stages.default.guarded must be true or false',
    });
    expect(stageRulesOrProblem(stages, 'staging').problem).toBeUndefined();
  });
});
