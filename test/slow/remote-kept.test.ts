import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, ROOT, run } from '../helpers/cli.js';
import { pidsOf, type SshHost, sshAvailable, startSshd } from '../helpers/sshd.js';

/**
 * The connection `tasks -H` keeps to a host between commands (src/cli/remote/host-broker.ts):
 * a broker process here, started by the first command, holding one ssh to a tasks that
 * stays up on the host. Against a real OpenSSH server on loopback, as another local user
 * (test/helpers/sshd.ts). The binary is run: processes, sockets, ssh and exit codes are
 * the point. Each test has its own runtime folder, so its own brokers.
 */
describe.skipIf(!sshAvailable())('tasks -H: the kept connection', () => {
  let host: SshHost;
  let local: string;
  const tasksDir = () => path.join(host.claudeDir, 'tasks', 'L');

  beforeAll(async () => {
    host = await startSshd();
    local = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-kept-')), 'claude');
    fs.mkdirSync(tasksDir(), { recursive: true });
    for (const [id, subject] of [
      [1, 'Set up the box'],
      [2, 'Run the migration'],
    ] as const) {
      fs.writeFileSync(
        path.join(tasksDir(), `${id}.json`),
        JSON.stringify({ id: String(id), subject, description: '', status: 'pending', blocks: [], blockedBy: [] }, null, 2),
      );
    }
    execFileSync('chown', ['-R', `${host.user}:`, host.claudeDir]);
    // The first command copies tasks there: done once, over plain ssh, for every test after.
    const r = run(local, ['-H', 'box', '-l', 'L', 'list'], { env: { ...host.env, TASKS_HOST_PERSIST: '0' }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
  });

  afterAll(() => {
    host?.stop();
  });

  /** A runtime folder of its own (brokers and ssh's shared connections live there), and a wrapper of ssh that counts its starts. */
  function world() {
    const runtime = fs.mkdtempSync('/tmp/tkr-');
    fs.chmodSync(runtime, 0o700);
    const calls = path.join(runtime, 'ssh-calls');
    const env: Record<string, string> = {
      ...host.env,
      XDG_RUNTIME_DIR: runtime,
      TASKS_SSH_COMMAND: `sh -c 'echo call >> ${calls}; exec ${host.env.TASKS_SSH_COMMAND} "$@"' ssh`,
    };
    const hostsDir = path.join(runtime, 'tasks', 'hosts');
    return {
      env,
      runtime,
      hostsDir,
      sshCalls: () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0),
      sockets: () => (fs.existsSync(hostsDir) ? fs.readdirSync(hostsDir).filter((f) => f.endsWith('.sock')) : []),
      remote: (args: string[], extra: Record<string, string> = {}) =>
        run(local, ['-H', 'box', ...args], { env: { ...env, ...extra }, cwd: os.tmpdir(), timeoutMs: 60_000 }),
      /** The broker processes of this folder (one per host; more only while they start). */
      brokers: () => brokersOf(runtime),
    };
  }

  function brokersOf(runtime: string): number[] {
    return pidsOf((p) => p.user === 'root').filter((pid) => {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
        return cmd.includes('__host-broker') && env.split('\0').includes(`XDG_RUNTIME_DIR=${runtime}`);
      } catch {
        return false;
      }
    });
  }

  /** The host's tasks processes that serve kept connections. */
  function servers(): number[] {
    return pidsOf((p) => p.user === host.user).filter((pid) => {
      try {
        const [program, ...args] = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return path.basename(program ?? '') === 'node' && args.includes('__host-serve');
      } catch {
        return false;
      }
    });
  }

  /** A broker is up once its ssh has started and its socket is there: wait for both. */
  async function brokerUp(w: ReturnType<typeof world>, sshCalls: number): Promise<void> {
    await eventually(() => w.sockets().length === 1 && w.sshCalls() >= sshCalls && w.brokers().length === 1, 'the broker');
  }

  it('keeps a connection after the first command: the next ones start no ssh, and answer as a run there', async () => {
    const w = world();
    const first = w.remote(['-l', 'L', 'list']);
    expect(first.code, first.stderr).toBe(0);
    // The command's own ssh, and the broker's, started in the background as it ended: on a
    // loaded machine that one may already have begun.
    expect([1, 2]).toContain(w.sshCalls());
    // The broker's own ssh: one more, once.
    await brokerUp(w, 2);
    const calls = w.sshCalls();
    expect(calls).toBe(2);
    for (const args of [
      ['-l', 'L', 'list'],
      ['-l', 'L', 'list', '--json'],
      ['-l', 'L', 'get', '1'],
      ['lists', '--json'],
    ]) {
      const kept = w.remote(args);
      const plain = w.remote(args, { TASKS_HOST_PERSIST: '0' });
      expect(kept.code, kept.stderr).toBe(0);
      expect(kept.stdout, args.join(' ')).toBe(plain.stdout);
      expect(kept.stderr).toBe(plain.stderr);
    }
    // The plain runs started ssh, one each (4); the kept ones none.
    expect(w.sshCalls()).toBe(calls + 4);
    expect(first.stdout).toBe(w.remote(['-l', 'L', 'list']).stdout);
    // The same list read here: the same lines.
    const copy = path.join(path.dirname(local), 'copy');
    fs.cpSync(host.claudeDir, copy, { recursive: true });
    expect(run(copy, ['-l', 'L', 'list']).stdout).toBe(first.stdout);
    expect(servers().length).toBeGreaterThanOrEqual(1);
  });

  it("a change through it is the host's, with the host's exit codes and errors naming the host", async () => {
    const w = world();
    expect(w.remote(['-l', 'K', 'create', 'First']).code).toBe(0);
    await brokerUp(w, 2);
    const calls = w.sshCalls();
    const made = w.remote(['-l', 'K', 'create', 'Made through the kept connection', '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).id).toBe('2');
    const file = path.join(host.claudeDir, 'tasks', 'K', '2.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).subject).toBe('Made through the kept connection');
    expect(fs.statSync(file).uid).toBe(Number(execFileSync('id', ['-u', host.user], { encoding: 'utf8' })));
    expect(w.remote(['-l', 'K', 'claim', '2', '--as', 'worker-1']).code).toBe(0);
    const refused = w.remote(['-l', 'K', 'claim', '2', '--as', 'worker-2']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^error: host box: cannot claim task #2: .*worker-1/);
    const missing = w.remote(['-l', 'nope', 'list']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^error: host box: /);
    expect(w.sshCalls()).toBe(calls);
    expect(fs.existsSync(local)).toBe(false);
  });

  it('a broker killed: the next command still answers (over ssh), and the one after has a new broker', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    const [broker] = w.brokers();
    process.kill(broker as number, 'SIGKILL');
    await eventually(() => w.brokers().length === 0, 'the broker to die');
    // Its socket is left behind, answering nobody.
    expect(w.sockets()).toHaveLength(1);
    const calls = w.sshCalls();
    const after = w.remote(['-l', 'L', 'list', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).length).toBeGreaterThanOrEqual(2);
    // That command's ssh, and the new broker's.
    await eventually(() => w.brokers().length === 1 && w.brokers()[0] !== broker && w.sshCalls() === calls + 2, 'a new broker');
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    expect(w.sshCalls()).toBe(calls + 2);
  });

  it('several first commands and brokers at once, three times over: one broker, one tasks kept on the host', async () => {
    for (let round = 0; round < 3; round++) {
      const w = world();
      const before = servers().length;
      // Six first commands (each starts a broker once it has its answer) and six brokers started directly, all at once.
      const direct = Array.from({ length: 6 }, () => spawnRun(['-H', 'box', '__host-broker'], w.env));
      const runs = await Promise.all(Array.from({ length: 6 }, () => spawnRun(['-H', 'box', '-l', 'L', 'list', '--json'], w.env)));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      await eventually(() => w.sockets().length === 1 && w.brokers().length === 1, 'one broker');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(w.brokers()).toHaveLength(1);
      expect(w.sockets()).toHaveLength(1);
      await eventually(() => servers().length === before + 1, 'one tasks on the host for it');
      expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
      expect(w.remote(['--disconnect']).stderr).toBe('closed the connection kept to box\n');
      await eventually(() => w.brokers().length === 0, 'the broker to close');
      // Every broker started directly has ended: the one that served, and those that found it.
      for (const d of await Promise.all(direct)) expect([d.code, d.killed]).toEqual([0, false]);
    }
  });

  it('nobody else can use it: the socket is 0600 in a 0700 folder, another user is refused, a wrong key gets nothing', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    const socket = path.join(w.hostsDir, w.sockets()[0] as string);
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    expect(fs.statSync(w.hostsDir).mode & 0o777).toBe(0o700);
    // Even with the folders open to it, another user cannot connect to the socket.
    fs.chmodSync(w.runtime, 0o755);
    fs.chmodSync(path.dirname(w.hostsDir), 0o755);
    fs.chmodSync(w.hostsDir, 0o755);
    const script = `require('net').connect(${JSON.stringify(socket)}).on('connect',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(0)})`;
    const asOther = execFileSync('su', ['-s', '/bin/sh', host.user, '-c', `${process.execPath} -e ${shellQuote(script)}`], {
      encoding: 'utf8',
    }).trim();
    expect(asOther).toBe('EACCES');
    fs.chmodSync(w.hostsDir, 0o700);
    // A caller that cannot read the key file is sent nothing, whatever it asks.
    const answer = await new Promise<string>((resolve) => {
      const s = net.connect(socket);
      let got = '';
      s.on('connect', () =>
        s.write(`${JSON.stringify({ key: 'not-the-key', build: '', args: ['lists'], env: {}, view: { host: 'box' } })}\n`),
      );
      s.on('data', (d) => (got += d));
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
    });
    expect(answer).toBe('');
  });

  it('a request line that is JSON but not an object (null, a number) is refused; the broker stays up and answers the next command', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    const [broker] = w.brokers();
    const socket = path.join(w.hostsDir, w.sockets()[0] as string);
    for (const line of ['null', '42', '"text"', '[]']) {
      const answer = await new Promise<string>((resolve) => {
        const s = net.connect(socket);
        let got = '';
        s.on('connect', () => s.write(`${line}\n`));
        s.on('data', (d) => (got += d));
        s.on('close', () => resolve(got));
        s.on('error', () => resolve(got));
      });
      expect(answer, line).toBe('');
    }
    expect(w.brokers()).toEqual([broker]);
    const calls = w.sshCalls();
    const r = w.remote(['-l', 'L', 'get', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(w.sshCalls()).toBe(calls);
  });

  it('TASKS_SSH_COMMAND naming a file by a relative path (ssh -F ./ci-ssh-config): kept, and per folder', async () => {
    const w = world();
    const sshConfig = (host.env.TASKS_SSH_COMMAND as string).replace(/^ssh -F /, '');
    const calls = path.join(w.runtime, 'relative-calls');
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tkr-project-'));
    fs.copyFileSync(sshConfig, path.join(project, 'ci-ssh-config'));
    const env = { ...w.env, TASKS_SSH_COMMAND: `sh -c 'echo call >> ${calls}; exec ssh -F ./ci-ssh-config "$@"' ssh` };
    const remote = (cwd: string) => run(local, ['-H', 'box', '-l', 'L', 'get', '1'], { env, cwd, timeoutMs: 60_000 });
    const sshCalls = () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0);
    const first = remote(project);
    expect(first.code, first.stderr).toBe(0);
    // The broker's ssh reads the same ./ci-ssh-config: it reaches the host, and the next command starts no ssh.
    await eventually(() => w.sockets().length === 1 && sshCalls() >= 2 && w.brokers().length === 1, 'the broker');
    const before = sshCalls();
    const next = remote(project);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe(first.stdout);
    expect(sshCalls()).toBe(before);
    // The same command line in another folder names another file: that broker does not answer for it.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'tkr-elsewhere-'));
    const other = remote(elsewhere);
    expect(other.code).toBe(8);
    expect(sshCalls()).toBe(before + 1);
  });

  it('closes after TASKS_HOST_PERSIST seconds without a command, with its tasks on the host', async () => {
    const w = world();
    const before = servers().length;
    expect(w.remote(['-l', 'L', 'list'], { TASKS_HOST_PERSIST: '2' }).code).toBe(0);
    await eventually(() => w.sockets().length === 1 && w.brokers().length === 1, 'the broker');
    await eventually(() => w.brokers().length === 0 && w.sockets().length === 0, 'the broker to close when idle', 20_000);
    await eventually(() => servers().length <= before, 'its tasks on the host to end', 20_000);
  });

  it('--disconnect closes it; TASKS_HOST_PERSIST=0 starts none', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    const closed = w.remote(['--disconnect']);
    expect([closed.code, closed.stderr]).toEqual([0, 'closed the connection kept to box\n']);
    await eventually(() => w.brokers().length === 0 && w.sockets().length === 0, 'the broker to close');
    const again = w.remote(['--disconnect']);
    expect([again.code, again.stderr]).toEqual([0, 'no connection kept to box\n']);
    expect(w.remote(['-l', 'L', 'list'], { TASKS_HOST_PERSIST: '0' }).code).toBe(0);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(w.brokers()).toEqual([]);
  });

  it('tasks on the host killed mid-command: one line naming the host, exit 8; the next command still answers', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    await eventually(() => servers().length >= 1, 'tasks on the host');
    // A change that waits there for the list's lock, left by an agent that died (it waits until the lock is stale, 10 s).
    const lock = path.join(host.claudeDir, 'tasks', 'L', '.lock.lock');
    fs.mkdirSync(lock);
    const waiting = spawnRun(['-H', 'box', '-l', 'L', 'create', 'Waits for the lock'], w.env);
    await eventually(() => fs.readdirSync(path.dirname(lock)).length > 0 && servers().length >= 1, 'the command there');
    await new Promise((r) => setTimeout(r, 1_500));
    // Each one may have ended between the listing and the kill (a child its parent's end took).
    for (const pid of servers()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    const r = await waiting;
    fs.rmSync(lock, { recursive: true, force: true });
    expect(r.code).toBe(8);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: host box: the connection was lost while the command ran there .*tasks -H box log/);
    const next = w.remote(['-l', 'L', 'list', '--json']);
    expect(next.code, next.stderr).toBe(0);
  });

  it("the broker's ssh killed mid-command: one line naming the host, exit 8; a command waiting on a lock there does not hold up another", async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    const lock = path.join(host.claudeDir, 'tasks', 'L', '.lock.lock');
    fs.mkdirSync(lock);
    let waitingDone = false;
    const waiting = spawnRun(['-H', 'box', '-l', 'L', 'create', 'Waits for the lock'], w.env).then((r) => {
      waitingDone = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 1_000));
    // A read from another terminal meanwhile: answered while the change still waits there.
    const read = await spawnRun(['-H', 'box', '-l', 'L', 'list', '--json'], w.env);
    expect(read.code, read.stderr).toBe(0);
    expect(waitingDone).toBe(false);
    const [broker] = w.brokers();
    const ssh = pidsOf((p) => p.ppid === broker);
    expect(ssh.length).toBeGreaterThan(0);
    // Each one may have ended between the listing and the kill (a child its parent's end took).
    for (const pid of ssh) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    const r = await waiting;
    fs.rmSync(lock, { recursive: true, force: true });
    expect(r.code).toBe(8);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: host box: the connection was lost while the command ran there /);
    await eventually(() => w.brokers().length === 0, 'the broker to end with its ssh');
    expect(w.sockets()).toEqual([]);
    // The change there was started: it finishes there, whole, once the lock is free.
    const made = () =>
      fs
        .readdirSync(tasksDir())
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(fs.readFileSync(path.join(tasksDir(), f), 'utf8')).subject);
    await eventually(() => made().includes('Waits for the lock'), 'the change to finish there');
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
  });

  it('a change stopped here (SIGTERM) once the host started it: the host finishes it, and the exit status says it was done', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    // A lock its holder left (never refreshed): the change there waits it out, about 10 s, then takes it.
    const lock = path.join(tasksDir(), '2.json.lock');
    fs.mkdirSync(lock);
    try {
      const child = spawn(process.execPath, [BIN, '-H', 'box', '-l', 'L', 'update', '2', '--subject', 'Stopped here, done there'], {
        env: baseEnv(path.join(os.tmpdir(), 'tasks-kept-none'), w.env),
        cwd: os.tmpdir(),
      });
      let stderr = '';
      child.stderr?.on('data', (d) => (stderr += d));
      const ended = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
      await eventually(() => stderr.includes('waiting for task #2'), 'the change to wait for the lock there');
      child.kill('SIGTERM');
      const code = await ended;
      const subject = () => JSON.parse(fs.readFileSync(path.join(tasksDir(), '2.json'), 'utf8')).subject;
      await eventually(() => subject() === 'Stopped here, done there' || !fs.existsSync(lock), 'the change there to end');
      // A script told "interrupted" (130) would make the change again; it was made.
      expect(subject()).toBe('Stopped here, done there');
      expect(code, stderr).toBe(0);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  });

  it('a broker that does not answer (stopped): exit 8 after the connect timeout and the grace, the command not run over ssh too', async () => {
    const w = world();
    expect(w.remote(['-l', 'L', 'list']).code).toBe(0);
    await brokerUp(w, 2);
    const [broker] = w.brokers();
    process.kill(broker as number, 'SIGSTOP');
    try {
      const calls = w.sshCalls();
      const r = w.remote(['-l', 'L', 'create', 'Never made twice'], { TASKS_SSH_TIMEOUT: '1' });
      expect(r.code).toBe(8);
      expect(r.stderr.trim()).toBe('error: host box: no answer within 21s');
      expect(w.sshCalls()).toBe(calls);
    } finally {
      process.kill(broker as number, 'SIGCONT');
    }
    expect(w.remote(['--disconnect']).code).toBe(0);
  });

  it('a host that cannot be reached: the broker ends at once and leaves nothing; the command says why, exit 8', async () => {
    const w = world();
    const broker = await spawnRun(['-H', 'box-down', '__host-broker'], w.env, 30_000);
    expect(broker.killed).toBe(false);
    expect(w.sockets()).toEqual([]);
    const r = run(local, ['-H', 'box-down', '-l', 'L', 'list'], { env: w.env, cwd: os.tmpdir() });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^error: host box-down: connection refused/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a broker of another build is not used: the command runs over ssh, and the next one starts a broker of this build', async () => {
    const w = world();
    // Another build: this one with another digest (its copy on the host is another folder).
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-other-build-'));
    for (const d of ['bin', 'dist']) fs.cpSync(path.join(ROOT, d), path.join(other, d), { recursive: true });
    fs.writeFileSync(path.join(other, 'dist', 'tasks.cjs.sha256'), `${'0'.repeat(64)}\n`);
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(other, 'node_modules'));
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(other, 'package.json'));
    const otherBin = path.join(other, 'bin', 'tasks.js');
    expect(run(local, ['-H', 'box', '-l', 'L', 'list'], { env: w.env, bin: otherBin, cwd: os.tmpdir() }).code).toBe(0);
    await brokerUp(w, 2);
    const [old] = w.brokers();
    const calls = w.sshCalls();
    const mine = w.remote(['-l', 'L', 'list', '--json']);
    expect(mine.code, mine.stderr).toBe(0);
    // Over ssh, not through the other build's broker.
    expect(w.sshCalls()).toBeGreaterThan(calls);
    expect(mine.stdout).toBe(w.remote(['-l', 'L', 'list', '--json'], { TASKS_HOST_PERSIST: '0' }).stdout);
    await eventually(() => w.brokers().length === 1 && w.brokers()[0] !== old, 'a broker of this build');
    fs.rmSync(other, { recursive: true, force: true });
  });
});

/** The binary, run in the background (several at once). */
function spawnRun(
  args: string[],
  env: Record<string, string>,
  killAfterMs = 60_000,
): Promise<{ code: number; stdout: string; stderr: string; killed: boolean }> {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    env: baseEnv(path.join(os.tmpdir(), 'tasks-kept-none'), env),
    cwd: os.tmpdir(),
  });
  let stdout = '';
  let stderr = '';
  let killed = false;
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, killAfterMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, killed });
    }),
  );
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

async function eventually(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
