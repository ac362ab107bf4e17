import {
  describeRoleTimeout,
  isRoleName,
  takeServiceRole,
  toMilliseconds,
} from '../../../tools/db/service-role';

describe('the service role options and values', () => {
  it.each([
    ['5000', 5000],
    ['5s', 5000],
    ['1min', 60_000],
    ['250ms', 250],
    ['1500us', 1.5],
    ['0', 0],
  ])('reads the stored statement_timeout %j as %d ms', (setting, ms) => {
    expect(toMilliseconds(setting)).toBe(ms);
  });

  it.each(['', 'five', '5 parsecs', '-5'])('reads %j as no value', (setting) => {
    expect(toMilliseconds(setting)).toBeUndefined();
  });

  it.each(['portal_api', '_x', 'Role$1'])('takes %j as a role name', (name) => {
    expect(isRoleName(name)).toBe(true);
  });

  it.each(['', '1role', 'a"b', 'a;drop role x', 'a b', 'x'.repeat(64)])(
    'refuses %j as a role name',
    (name) => {
      expect(isRoleName(name)).toBe(false);
    },
  );

  it('takes --service-role NAME out of the arguments and leaves the rest', () => {
    expect(
      takeServiceRole(['--from', '2026-01-01', '--service-role', 'portal_api', '--repair']),
    ).toEqual({ role: 'portal_api', rest: ['--from', '2026-01-01', '--repair'] });
    expect(takeServiceRole(['--repair'])).toEqual({ rest: ['--repair'] });
  });

  it('takes --service-role=NAME out as one word', () => {
    // Act / Assess
    expect(takeServiceRole(['--repair', '--service-role=portal_api', '--metrics'])).toEqual({
      role: 'portal_api',
      rest: ['--repair', '--metrics'],
    });
  });

  it('leaves --help, -h, the options it does not know and all after -- to the tool, in order', () => {
    // Arrange
    const args = ['-h', '--fix', '--service-role', 'portal_api', '--help', '--', '--service-role'];

    // Act / Assess
    expect(takeServiceRole(args)).toEqual({
      role: 'portal_api',
      rest: ['-h', '--fix', '--help', '--', '--service-role'],
    });
  });

  it('refuses --service-role given twice', () => {
    // Act / Assess
    expect(takeServiceRole(['--service-role', 'a', '--service-role=b'])).toEqual({
      error: '--service-role is given twice',
    });
  });

  it.each([
    [['--service-role']],
    [['--service-role', 'a;b']],
    [['--service-role=']],
    [['--service-role', '--repair']],
  ])('refuses --service-role without a role name: %j', (args) => {
    expect(takeServiceRole(args)).toEqual({
      error: '--service-role needs the name of the role the functions log in as',
    });
  });

  it('says whether the role bounds its statements', () => {
    expect(describeRoleTimeout('portal_api', 5000)).toEqual({
      ok: true,
      line: 'service role portal_api: statement_timeout 5000 ms',
    });
    expect(describeRoleTimeout('portal_api', undefined)).toEqual({
      ok: false,
      line: 'service role portal_api: no statement_timeout (npm run db:migrate -- --service-role portal_api)',
    });
    expect(describeRoleTimeout('portal_api', 0).ok).toBe(false);
    expect(describeRoleTimeout('nobody', null)).toEqual({
      ok: false,
      line: 'service role nobody: no such role',
    });
  });
});
