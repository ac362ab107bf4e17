import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, parentOf, stopGroup } from '../../../tools/local/shutdown';

const ROOT = join(import.meta.dirname, '../../..');

/** Whether `pid` runs (a zombie, exited but not yet reaped, does not). */
const running = (pid: number): boolean => {
  const stat = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  const state = stat.stdout.trim();
  return state !== '' && !state.startsWith('Z');
};

/** Waits until `condition` holds, at most `timeoutMs`. */
const until = async (condition: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(25);
  }
};

/** The first line `child` prints, within `timeoutMs`. */
const firstLine = (child: ChildProcess, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      reject(new Error(`no line within ${timeoutMs} ms: ${seen}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const end = seen.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      resolve(seen.slice(0, end));
    });
  });

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

/**
 * A detached process (its own group) that starts one more in its group refusing SIGTERM, and
 * prints that one's pid once its refusal is in place; `refuse`: it refuses SIGTERM itself too.
 */
const groupLeader = async (refuse: boolean) => {
  const grandchild = `process.on('SIGTERM', () => {}); console.log('set'); setInterval(() => {}, 1000);`;
  const leader = spawn(
    process.execPath,
    [
      '-e',
      `const g = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}]);
       ${refuse ? "process.on('SIGTERM', () => {});" : ''}
       g.stdout.once('data', () => console.log(g.pid));
       setInterval(() => {}, 1000);`,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  started.push(leader.pid ?? 0);
  const grandchildPid = Number(await firstLine(leader, 10_000));
  started.push(grandchildPid);
  return { leader, grandchildPid };
};

describe("stopping what npm start started (tools/local/shutdown.ts's stopGroup)", () => {
  it('stops the leader with SIGTERM and what it left in its group with SIGKILL', async () => {
    // Prepare
    const { leader, grandchildPid } = await groupLeader(false);

    // Act
    const outcome = await stopGroup(leader, { graceMs: 5000 });

    // Assess
    expect({ outcome, signal: leader.signalCode }).toEqual({
      outcome: 'exited',
      signal: 'SIGTERM',
    });
    await until(() => !running(grandchildPid), 5000, 'the process the leader left');
  });

  it('sends SIGKILL to a group whose leader refuses SIGTERM, once the grace is over', async () => {
    // Prepare
    const { leader, grandchildPid } = await groupLeader(true);

    // Act
    const outcome = await stopGroup(leader, { graceMs: 300 });

    // Assess
    expect({ outcome, signal: leader.signalCode }).toEqual({
      outcome: 'killed',
      signal: 'SIGKILL',
    });
    await until(() => !running(grandchildPid), 5000, 'the process the leader left');
  });
});

describe("npm start stops once what started it is gone (tools/local/shutdown.ts's watchLauncher)", () => {
  /**
   * sh (the outer) → sh (the inner) → node watching: as npm → sh → tsx → tools/start.ts, where
   * a SIGTERM that npm forwards ends sh alone. Resolves once the watcher has said who its parent is.
   */
  const chain = async () => {
    const watcher = `import('./tools/local/shutdown.ts').then(({ watchLauncher }) => {
      watchLauncher(() => { console.log('gone'); process.exit(0); }, 25);
      console.log(JSON.stringify({ self: process.pid, parent: process.ppid }));
      setInterval(() => {}, 1000);
    });`;
    const outer = spawn('sh', ['-c', 'sh -c "$INNER"; true'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_BIN: process.execPath,
        WATCHER: watcher,
        INNER: '"$NODE_BIN" --import tsx -e "$WATCHER"; true',
      },
      // The outer sh says "Killed" of the inner one: read only when the watcher fails.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    outer.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    started.push(outer.pid ?? 0);
    const said = await firstLine(outer, 20_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${errors}`);
    });
    const { self, parent } = JSON.parse(said) as { self: number; parent: number };
    started.push(self, parent);
    const gone = new Promise<void>((resolve) => {
      outer.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('gone')) resolve();
      });
    });
    return { outer, self, parent, gone, errors: () => errors };
  };

  it('finds a process’s parent', () => {
    // Act / Assess
    expect(parentOf(process.pid)).toBe(process.ppid);
  });

  it.each([
    ['its parent', 'parent'],
    ["its parent's parent", 'outer'],
  ] as const)('stops when %s is gone', async (_name, which) => {
    // Prepare
    const { outer, self, parent, gone, errors } = await chain();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`the watcher did not notice within 10 s:\n${errors()}`));
      }, 10_000);
    });

    // Act
    process.kill(which === 'parent' ? parent : (outer.pid ?? 0), 'SIGKILL');

    // Assess
    await Promise.race([gone, late]).finally(() => {
      clearTimeout(timer);
    });
    await until(() => !running(self), 5000, 'the watcher');
  });
});
