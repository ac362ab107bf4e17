/**
 * How `npm start` (tools/start.ts) stops what it started.
 *
 * - serverless-offline runs in a process group of its own (spawned `detached`), so that one signal
 *   reaches it and whatever it starts (esbuild's service, workers), and a SIGKILL reaches those too
 *   rather than leaving them to init. A terminal's Ctrl-C therefore no longer reaches it: the
 *   SIGINT goes to the terminal's foreground group, `npm start` among it, which stops the group.
 * - `npm start` runs as npm → sh → tsx → tools/start.ts. npm forwards a SIGTERM it is sent to sh
 *   alone, which dies of it and signals nothing further: tools/start.ts also stops when its parent
 *   or its parent's parent is gone (watchLauncher).
 * - Not covered: tools/start.ts itself sent SIGKILL. tsx's CLI sends one when the script does not
 *   acknowledge, within 30 ms, a SIGINT or SIGTERM it relays (it relays one the script did not
 *   report receiving itself).
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** How long a stopped group has to exit before it is sent SIGKILL. */
export const GRACE_MS = 3000;
/** How often watchLauncher looks. */
const WATCH_INTERVAL_MS = 250;

const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException).code;

/** Sends `signal` to the process group `pgid`: false when there is no such group any more. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
    throw error;
  }
};

/** Whether `pid` names a process (a zombie included). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: there is one, another user's.
    return errorCode(error) !== 'ESRCH';
  }
};

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Whether `child` exits within `ms`. */
const exitsWithin = (child: ChildProcess, ms: number): Promise<boolean> =>
  hasExited(child)
    ? Promise.resolve(true)
    : new Promise((resolve) => {
        const onExit = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          child.off('exit', onExit);
          resolve(false);
        }, ms);
        child.once('exit', onExit);
      });

/**
 * Stops `child`, the leader of a process group of its own (spawned `detached`), and the rest of
 * its group: `signal` to the group, up to `graceMs` for the child to exit, else SIGKILL to the
 * group; then SIGKILL to whatever is left in the group (what the child started and left behind).
 * Resolves once the child has exited: `exited` when it did so of the signal, `killed` otherwise.
 */
export const stopGroup = async (
  child: ChildProcess,
  { signal = 'SIGTERM', graceMs = GRACE_MS }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<'exited' | 'killed'> => {
  const pgid = child.pid;
  if (pgid === undefined) return 'exited';
  let outcome: 'exited' | 'killed' = 'exited';
  if (!hasExited(child)) signalGroup(pgid, signal);
  if (!(await exitsWithin(child, graceMs))) {
    outcome = 'killed';
    signalGroup(pgid, 'SIGKILL');
    // A SIGKILL cannot be refused; bounded all the same.
    await exitsWithin(child, graceMs);
  }
  signalGroup(pgid, 'SIGKILL');
  return outcome;
};

/** The parent of `pid`: /proc on Linux, else ps; undefined when neither says. */
export const parentOf = (pid: number): number | undefined => {
  const read = () => {
    try {
      // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      try {
        return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }));
      } catch {
        return Number.NaN;
      }
    }
  };
  const ppid = read();
  return Number.isSafeInteger(ppid) && ppid > 0 ? ppid : undefined;
};

/**
 * Calls `onGone` once, when this process's parent or its parent's parent is gone (init, pid 1,
 * is not watched). Returns what stops watching. The timer does not keep the process alive.
 */
export const watchLauncher = (onGone: () => void, intervalMs = WATCH_INTERVAL_MS): (() => void) => {
  const parent = process.ppid;
  const grandparent = parent > 1 ? parentOf(parent) : undefined;
  const watched = grandparent !== undefined && grandparent > 1 ? grandparent : undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent && (watched === undefined || alive(watched))) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
};
