/** Waiting for a PostgreSQL session to block on a lock, rather than sleeping and hoping it has. */
import type postgres from 'postgres';

/** Which session: its backend's pid, or the application_name it connected with. */
export type Session = { readonly pid: number } | { readonly application: string };

/**
 * Resolves once the session waits for a lock (another transaction's), asked of
 * pg_stat_activity through `admin`; rejects if it has not within `limitMs`.
 */
export const waitingForLock = async (
  admin: postgres.Sql,
  session: Session,
  limitMs = 20_000,
): Promise<void> => {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const [row] =
      'pid' in session
        ? await admin<{ waiting: boolean }[]>`
            select coalesce(bool_or(wait_event_type = 'Lock'), false) as waiting
            from pg_stat_activity where pid = ${session.pid}`
        : await admin<{ waiting: boolean }[]>`
            select coalesce(bool_or(wait_event_type = 'Lock'), false) as waiting
            from pg_stat_activity where application_name = ${session.application}`;
    if (row?.waiting) return;
    if (performance.now() > deadline) {
      const which = 'pid' in session ? `backend ${String(session.pid)}` : session.application;
      throw new Error(`${which} never waited for a lock`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
