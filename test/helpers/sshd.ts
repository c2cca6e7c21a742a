import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * A real OpenSSH server on loopback for `-H` tests, as a host users have: its own host
 * key, one authorized key, and a second local user (made for the test, removed after)
 * whose home holds the "remote" ~/.claude and no tasks. Needs root (sshd switches to the
 * user) and Debian's openssh-server; `available()` says whether this machine has them.
 *
 * Each kind of host is a port of the same server (`Match LocalPort`): `box` as it
 * should be; `box-nonode` whose PATH has no node; `box-oldnode` whose node says it is
 * 18; `box-rocache` whose cache folder cannot be written; `box-skew` whose clock is two
 * minutes ahead. And client-side faults, by
 * Host alias in the ssh config handed to tasks (TASKS_SSH_COMMAND): `box-badkey` (a key
 * the host does not accept), `box-mismatch` (known_hosts holds another key), `box-down`
 * (nothing listens).
 */
export interface SshHost {
  dir: string;
  user: string;
  home: string;
  /** The host user's ~/.claude. */
  claudeDir: string;
  /** The environment a local run needs (TASKS_SSH_COMMAND with the config, a private socket folder). */
  env: Record<string, string>;
  sshdPid: number;
  /** Run a command as the host user (to set up files there). */
  asUser(cmd: string): string;
  /** End the server, its sessions, the user's processes, and remove the user. */
  stop(): void;
}

const SSHD = '/usr/sbin/sshd';

export function sshAvailable(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0 && fs.existsSync(SSHD) && spawnSync('ssh', ['-V']).status === 0;
}

/**
 * `n` ports free now, all different: each is held until all are had (one closed before
 * the next was asked for could be handed out again, and two kinds of host on one port
 * would share a Match block: a `box` that is also `box-rocache`).
 */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

async function listening(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen on ${port}`);
}

const keygen = (file: string): void => {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
};

export async function startSshd(): Promise<SshHost> {
  // Short: the ControlMaster socket's path must fit in 104 bytes.
  const dir = fs.mkdtempSync('/tmp/tsshd-');
  fs.chmodSync(dir, 0o755);
  const user = `tr${Math.random().toString(36).slice(2, 8)}`;
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  execFileSync('useradd', ['-M', '-d', home, '-s', '/bin/sh', '-p', '*', user]);
  execFileSync('chown', [`${user}:`, home]);
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  for (const k of ['host_key', 'wrong_host_key', 'client_key', 'other_key']) keygen(path.join(dir, k));
  fs.writeFileSync(path.join(dir, 'authorized_keys'), fs.readFileSync(path.join(dir, 'client_key.pub')));
  const hostPub = fs.readFileSync(path.join(dir, 'host_key.pub'), 'utf8').trim();
  const wrongPub = fs.readFileSync(path.join(dir, 'wrong_host_key.pub'), 'utf8').trim();
  fs.writeFileSync(path.join(dir, 'known_hosts'), `tasks-test-host ${hostPub}\n`);
  fs.writeFileSync(path.join(dir, 'wrong_known_hosts'), `tasks-test-host ${wrongPub}\n`);

  // The hosts that cannot run tasks: no node on the PATH; a node that says it is 18; a cache folder nobody may write.
  const noNodeBin = path.join(dir, 'nonode-bin');
  fs.mkdirSync(noNodeBin);
  fs.symlinkSync('/bin/sh', path.join(noNodeBin, 'sh'));
  const oldNodeBin = path.join(dir, 'oldnode-bin');
  fs.mkdirSync(oldNodeBin);
  fs.writeFileSync(
    path.join(oldNodeBin, 'pretend-18.cjs'),
    "Object.defineProperty(process.versions, 'node', { value: '18.19.0' });\nObject.defineProperty(process, 'version', { value: 'v18.19.0' });\n",
  );
  fs.writeFileSync(path.join(oldNodeBin, 'node'), `#!/bin/sh\nexec ${process.execPath} --require ${oldNodeBin}/pretend-18.cjs "$@"\n`, {
    mode: 0o755,
  });
  // A host whose clock runs two minutes ahead: its node moves Date.now.
  const skewBin = path.join(dir, 'skew-bin');
  fs.mkdirSync(skewBin);
  fs.writeFileSync(path.join(skewBin, 'ahead-120s.cjs'), 'const now = Date.now;\nDate.now = () => now() + 120_000;\n');
  fs.writeFileSync(path.join(skewBin, 'node'), `#!/bin/sh\nexec ${process.execPath} --require ${skewBin}/ahead-120s.cjs "$@"\n`, {
    mode: 0o755,
  });
  const roCache = path.join(dir, 'ro-cache');
  fs.mkdirSync(roCache, { mode: 0o555 });
  fs.chmodSync(roCache, 0o555);

  const [main, noNode, oldNode, roPort, down, skew] = (await freePorts(6)) as [number, number, number, number, number, number];
  const nodeDir = path.dirname(process.execPath);
  const sshdConfig = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    sshdConfig,
    [
      ...[main, noNode, oldNode, roPort, skew].map((p) => `ListenAddress 127.0.0.1:${p}`),
      `HostKey ${dir}/host_key`,
      `PidFile ${dir}/sshd.pid`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AllowUsers ${user}`,
      'LogLevel ERROR',
      // sftp, for a test that mounts the host's folder here (sshfs).
      'Subsystem sftp internal-sftp',
      `SetEnv PATH=${nodeDir}:/usr/bin:/bin`,
      // A host user's own XDG_CACHE_HOME, sent by the client (ssh -o SetEnv=...).
      'AcceptEnv XDG_CACHE_HOME',
      `Match LocalPort ${noNode}`,
      `  SetEnv PATH=${noNodeBin}`,
      `Match LocalPort ${oldNode}`,
      `  SetEnv PATH=${oldNodeBin}:/usr/bin:/bin`,
      `Match LocalPort ${skew}`,
      `  SetEnv PATH=${skewBin}:/usr/bin:/bin`,
      `Match LocalPort ${roPort}`,
      `  SetEnv XDG_CACHE_HOME=${roCache} PATH=${nodeDir}:/usr/bin:/bin`,
      '',
    ].join('\n'),
  );
  const alias = (name: string, port: number, extra: string[] = []): string =>
    [
      `Host ${name}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${dir}/${extra.includes('badkey') ? 'other_key' : 'client_key'}`,
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      '  HostKeyAlias tasks-test-host',
      `  UserKnownHostsFile ${dir}/${extra.includes('mismatch') ? 'wrong_known_hosts' : 'known_hosts'}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n');
  const sshConfig = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    sshConfig,
    [
      alias('box', main),
      alias('box-nonode', noNode),
      alias('box-oldnode', oldNode),
      alias('box-rocache', roPort),
      alias('box-skew', skew),
      alias('box-badkey', main, ['badkey']),
      alias('box-mismatch', main, ['mismatch']),
      alias('box-down', down),
    ].join('\n'),
  );
  const sshd: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
  let sshdLog = '';
  sshd.stderr?.on('data', (d) => (sshdLog += d));
  try {
    await Promise.all([main, noNode, oldNode, roPort, skew].map((p) => listening(p, Date.now() + 10_000)));
  } catch (err) {
    sshd.kill('SIGKILL');
    throw new Error(`${(err as Error).message}: ${sshdLog}`);
  }
  const runDir = path.join(dir, 'run');
  fs.mkdirSync(runDir, { mode: 0o700 });
  const claudeDir = path.join(home, '.claude');
  const host: SshHost = {
    dir,
    user,
    home,
    claudeDir,
    sshdPid: sshd.pid as number,
    env: { TASKS_SSH_COMMAND: `ssh -F ${sshConfig}`, XDG_RUNTIME_DIR: runDir, TASKS_SSH_TIMEOUT: '5' },
    asUser: (cmd) => execFileSync('su', ['-s', '/bin/sh', user, '-c', cmd], { encoding: 'utf8' }),
    stop: () => {
      // Every process here is the test's: the server, its sessions, the host user's commands.
      for (const pid of pidsOf((p) => p.ppid === sshd.pid || p.user === user)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      sshd.kill('SIGKILL');
      spawnSync('userdel', [user]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return host;
}

/** Every process below `pid` (a test's sshd: its monitors, sessions and their commands). */
export function descendantsOf(pid: number): number[] {
  const out = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout;
  const children = new Map<number, number[]>();
  for (const line of out.split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number);
    if (p === undefined || pp === undefined || Number.isNaN(p)) continue;
    children.set(pp, [...(children.get(pp) ?? []), p]);
  }
  const found: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

/** Processes by parent and user (ps), for ending a test's own sessions by id. */
export function pidsOf(match: (p: { pid: number; ppid: number; user: string }) => boolean): number[] {
  const out = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,user:32='], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length === 3)
    .map(([pid, ppid, user]) => ({ pid: Number(pid), ppid: Number(ppid), user: user as string }))
    .filter(match)
    .map((p) => p.pid);
}
