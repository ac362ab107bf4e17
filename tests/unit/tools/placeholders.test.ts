import { fillPlaceholders, hasPlaceholders } from '../../../tools/local/placeholders';
import type { IsoDate } from '../../../shared/dates';

const values = { token: 'tok', today: '2026-03-15' as IsoDate };

describe('sample event placeholders', () => {
  it('fills the token, days back from today and month starts back from this month', () => {
    const event = {
      headers: { Authorization: 'Bearer ${LOCAL_TOKEN}' },
      query: { from: '${TODAY-6}', to: '${TODAY}', month: '${MONTH}', earlier: '${MONTH-3}' },
    };

    expect(fillPlaceholders(event, values)).toEqual({
      headers: { Authorization: 'Bearer tok' },
      query: { from: '2026-03-09', to: '2026-03-15', month: '2026-03-01', earlier: '2025-12-01' },
    });
  });

  it('leaves text without placeholders, and an unknown or malformed one, as it is', () => {
    const event = { a: 'plain', b: '${LOCAL_TOKEN-1}', c: '${YESTERDAY}', d: 42 };

    expect(fillPlaceholders(event, values)).toEqual(event);
    expect(hasPlaceholders({ a: 'plain' })).toBe(false);
    expect(hasPlaceholders({ a: '${MONTH-1}' })).toBe(true);
  });
});
