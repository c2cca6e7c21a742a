import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseHost } from '../../src/cli/remote/host-address.js';
import { commandTakesValue, hostArgv } from '../../src/cli/remote/host-argv.js';
import { linkPaths, persistSeconds } from '../../src/cli/remote/host-link.js';
import { payloadBytes } from '../../src/cli/remote/payload.js';
import { withHost } from '../../src/cli/remote/remote-run.js';
import { INSTALLER, remoteCommand, shellQuote } from '../../src/cli/remote/remote-scripts.js';
import { sshCall } from '../../src/cli/remote/ssh-command.js';
import { isSshDropLine, sshFailureCause } from '../../src/cli/remote/ssh-faults.js';

const argv = (...words: string[]) => ['node', 'tasks', ...words];

describe('the hosts a command line names', () => {
  it('takes -H, -Hx, --host x and --host=x anywhere before --, and leaves the rest for the host', () => {
    expect(hostArgv(argv('-H', 'box', '-l', 'L', 'list', '--json'), {})).toEqual({
      hosts: ['box'],
      args: ['-l', 'L', 'list', '--json'],
      command: 'list',
      boardHost: false,
      from: '-H',
    });
    expect(hostArgv(argv('list', '--host=ssh://me@b:2222', '-Ha'), {})?.hosts).toEqual(['ssh://me@b:2222', 'a']);
    expect(hostArgv(argv('create', '--', '-H', 'x'), {})).toBeUndefined();
    expect(hostArgv(argv('-l', '-H', 'list'), {})).toBeUndefined();
  });
  it('falls back to TASKS_HOST, and an empty one is no host', () => {
    expect(hostArgv(argv('list'), { TASKS_HOST: 'box' })).toMatchObject({ hosts: ['box'], from: 'TASKS_HOST' });
    expect(hostArgv(argv('list'), { TASKS_HOST: '' })).toBeUndefined();
    expect(hostArgv(argv('-H', 'a', 'list'), { TASKS_HOST: 'b' })?.hosts).toEqual(['a']);
  });
  it("takes a host word after a command's option that takes a value as that value, as commander gives it the next word", () => {
    // A subject, a description, a list name: no host is named, nothing goes to ssh.
    expect(hostArgv(argv('-l', 'x', 'update', '1', '--subject', '-Hotfix'), {})).toBeUndefined();
    expect(hostArgv(argv('-l', 'x', 'create', 's', '-d', '-Hx'), {})).toBeUndefined();
    expect(hostArgv(argv('update', '1', '--owner', '--host=x'), {})).toBeUndefined();
    expect(hostArgv(argv('list', '-l', '-Hx'), {})).toBeUndefined();
    expect(hostArgv(argv('notify', '--stalled', '-Hx'), {})).toBeUndefined();
    // Still a host: a value given before it, an option whose value is optional (list --stalled), a word after --.
    expect(hostArgv(argv('update', '1', '--subject', 'Fix', '-Hbox'), {})?.hosts).toEqual(['box']);
    expect(hostArgv(argv('list', '--stalled', '-Hbox'), {})?.hosts).toEqual(['box']);
    expect(hostArgv(argv('update', '1', '--subject', '-l', '-Hx'), {})).toBeUndefined();
    // A help or version word as a value is no request for help or the version: the change goes to $TASKS_HOST.
    expect(hostArgv(argv('-l', 'x', 'update', '1', '--subject', '--help'), { TASKS_HOST: 'box' })?.hosts).toEqual(['box']);
    expect(hostArgv(argv('update', '1', '--subject', '--version'), { TASKS_HOST: 'box' })?.hosts).toEqual(['box']);
    expect(hostArgv(argv('update', '1', '-d', '-Vx'), { TASKS_HOST: 'box' })?.hosts).toEqual(['box']);
    expect(hostArgv(argv('update', '1', '--subject', 'x', '--version'), { TASKS_HOST: 'box' })).toBeUndefined();
  });
  it('knows every command option that takes a value, as the program defines it', async () => {
    const { buildProgram } = await import('../../src/cli/commands/program.js');
    const { Context } = await import('../../src/cli/runtime/context.js');
    const { IO } = await import('../../src/cli/runtime/io.js');
    const { standardInput } = await import('../../src/cli/runtime/fd-output.js');
    const io = new IO({ stdout: process.stdout, stderr: process.stderr, stdin: standardInput() }, {});
    const program = await buildProgram(new Context(io, { env: {}, cwd: os.tmpdir() }));
    let checked = 0;
    for (const command of program.commands) {
      for (const option of command.options) {
        for (const flag of [option.long, option.short]) {
          if (flag === undefined) continue;
          checked++;
          expect(commandTakesValue(command.name(), flag), `${command.name()} ${flag}`).toBe(option.required);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
  it('bin/tasks.js sends to the remote bundle every command line hostArgv finds a host in (the bundle declines the others)', () => {
    const source = fs.readFileSync(path.join(__dirname, '..', '..', 'bin', 'tasks.js'), 'utf8');
    const grab = (re: RegExp) => re.exec(source)?.[0] as string;
    const bin = vm.runInNewContext(
      [
        grab(/const GLOBAL_WITH_VALUE = [^\n]*/),
        grab(/const HELP_WORDS = [^\n]*/),
        grab(/function namesHost\(argv, env\) \{[\s\S]*?\n\}/),
        grab(/function answeredHere\(argv\) \{[\s\S]*?\n\}/),
        grab(/function commandName\(argv\) \{[\s\S]*?\n\}/),
        '({ namesHost, answeredHere, commandName })',
      ].join('\n'),
    ) as Record<'namesHost' | 'answeredHere' | 'commandName', (argv: string[], env?: object) => unknown>;
    const words = ['-H', 'box', '-Hx', '--host=y', '--hosts', '-l', 'update', '--subject', 'board', '--', '--help', '-V', 'help', '--json'];
    const missed: string[][] = [];
    const check = (line: string[]) => {
      for (const env of [{}, { TASKS_HOST: 'box' }]) {
        const a = argv(...line);
        const found = hostArgv(a, env);
        const sent = bin.namesHost(a, env) === true && bin.commandName(a) !== 'board' && bin.answeredHere(a) !== true;
        // A help word as a command option's value (--subject --help), which bin cannot know: the whole CLI finds the host.
        const helpAsValue = line.some((w, i) => w === '--subject' && ['--help', '-V', '--version'].includes(line[i + 1] as string));
        if (found !== undefined && found.command !== 'board' && !sent && !helpAsValue) missed.push(line);
      }
    };
    const grow = (line: string[], depth: number): void => {
      check(line);
      if (depth > 0) for (const w of words) grow([...line, w], depth - 1);
    };
    grow([], 4);
    expect(missed.slice(0, 10)).toEqual([]);
  });
  it("tells board's old --host from the global one", () => {
    expect(hostArgv(argv('board', '--host', '0.0.0.0'), {})?.boardHost).toBe(true);
    expect(hostArgv(argv('-H', 'box', 'board'), {})?.boardHost).toBe(false);
  });
});

describe('a host as ssh is told it', () => {
  it('reads ssh:// URLs and passes aliases as they are', () => {
    expect(parseHost('ssh://me@example.com:2222')).toEqual({
      label: 'ssh://me@example.com:2222',
      destination: 'me@example.com',
      port: '2222',
    });
    expect(parseHost('ssh://[::1]')).toEqual({ label: 'ssh://[::1]', destination: '::1', port: undefined });
    expect(parseHost('devbox')).toEqual({ label: 'devbox', destination: 'devbox', port: undefined });
    expect(parseHost('me@devbox').destination).toBe('me@devbox');
  });
  it.each([
    ['', /no host named/],
    ['-oProxyCommand=sh', /does not start with "-"/],
    ['ssh://-oProxyCommand=x', /does not start with "-"/],
    ['box name', /no spaces/],
    ['http://box', /only ssh:\/\//],
    ['ssh://box:0', /port 0/],
    ['ssh://box:99999', /port 99999/],
    ['ssh://box/path', /not ssh:\/\//],
  ])('refuses %j before ssh sees it', (text, message) => {
    expect(() => parseHost(text)).toThrow(message);
  });
});

describe('the ssh command line', () => {
  const target = { label: 'box', destination: 'me@box', port: '2222' };
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-ssh-'));
  it('runs the system ssh in batch mode with a timeout, the port, and the command last', () => {
    const call = sshCall(target, 'CMD', { tty: false, env: { TASKS_SSH_TIMEOUT: '7', XDG_RUNTIME_DIR: runtime } });
    expect(call.file).toBe('ssh');
    expect(call.args).toEqual(expect.arrayContaining(['BatchMode=yes', 'ConnectTimeout=7', '-T', '-p', '2222']));
    expect(call.args.slice(-3)).toEqual(['--', 'me@box', 'CMD']);
    expect(call.connectTimeoutS).toBe(7);
  });
  it('shares one connection through a socket in a folder only this user may enter', () => {
    const call = sshCall(target, 'CMD', { tty: false, env: { XDG_RUNTIME_DIR: runtime } });
    const dir = path.join(runtime, 'tasks', 'ssh');
    expect(call.args).toEqual(expect.arrayContaining(['ControlMaster=auto', `ControlPath=${dir}/%C`]));
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    // A folder others may enter is not used: no shared connection then.
    fs.chmodSync(dir, 0o755);
    expect(sshCall(target, 'CMD', { tty: false, env: { XDG_RUNTIME_DIR: runtime } }).args.join(' ')).not.toContain('ControlPath');
    fs.chmodSync(dir, 0o700);
  });
  it('asks for a terminal there with -tt, and lets TASKS_SSH_COMMAND replace ssh', () => {
    const call = sshCall(target, 'CMD', { tty: true, env: { TASKS_SSH_COMMAND: 'ssh -F ./ci-ssh-config', XDG_RUNTIME_DIR: runtime } });
    expect(call.file).toBe('/bin/sh');
    expect(call.args.slice(0, 3)).toEqual(['-c', 'exec ssh -F ./ci-ssh-config "$@"', 'tasks-ssh']);
    expect(call.args).toContain('-tt');
  });
});

describe('what runs on the host', () => {
  it('quotes every word for the remote shell', () => {
    expect(shellQuote("it's")).toBe(`'it'"'"'s'`);
    const command = remoteCommand('run', '0.1.0-abc', ['create', "Fix $HOME's `quote`"]);
    expect(command).toContain(`'create' 'Fix $HOME'"'"'s \`quote\`'`);
  });

  // sshd hands the command to the user's login shell, whichever it is: a word must come out
  // whole in each (fish reads \\ and \' inside single quotes; a trailing backslash there
  // once ended the quote early and ran the rest of the line as commands).
  const words = [
    'a\\',
    '; touch /tmp/x; echo ',
    '\\',
    "it's",
    'C:\\Users\\me\\',
    'two\nlines',
    '$(id) `id` $HOME !!',
    '"q" \\\'',
    'ünï 🎉',
    '',
  ];
  it.each(['sh', 'bash', 'zsh', 'fish'].filter((shell) => spawnSync(shell, ['-c', 'true']).status === 0))(
    'gives the host every word as it was, read by %s as a login shell',
    (shell) => {
      const r = spawnSync(shell, ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout.split('\0').slice(0, -1)).toEqual(words);
    },
  );
});

describe("ssh's failures", () => {
  it.each([
    ['ssh: connect to host 127.0.0.1 port 1: Connection refused', /connection refused/],
    ['me@box: Permission denied (publickey).', /the key was refused \(Permission denied: publickey\)/],
    ['@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\nHost key verification failed.', /host key mismatch/],
    [
      'No ED25519 host key is known for box and you have requested strict checking.\nHost key verification failed.',
      /host key not verified/,
    ],
    ['ssh: Could not resolve hostname nope: Name or service not known', /cannot resolve the host name \(Name or service not known\)/],
    ['ssh: connect to host 10.0.0.1 port 22: Connection timed out', /no answer within 9s/],
    ['kex_exchange_identification: read: weird', /^ssh: kex_exchange_identification: read: weird$/],
    ['', /said nothing/],
  ])('%j', (stderr, cause) => {
    expect(sshFailureCause(stderr, 9)).toMatch(cause);
  });
  it("keeps ssh's own words about a dropped connection out of the command's stderr", () => {
    expect(isSshDropLine('client_loop: send disconnect: Broken pipe')).toBe(true);
    expect(isSshDropLine('Connection to box closed by remote host.')).toBe(true);
    expect(isSshDropLine('error: task 4 not found')).toBe(false);
  });
});

describe('--json from a host, of a command that names lists or sessions', () => {
  it('names the host first in every row, or first in the document, and leaves anything else as it is', () => {
    expect(JSON.parse(withHost('[{"id":"L","total":1}]', 'box'))).toEqual([{ host: 'box', id: 'L', total: 1 }]);
    expect(Object.keys(JSON.parse(withHost('[{"id":"L"}]', 'box'))[0])).toEqual(['host', 'id']);
    expect(Object.keys(JSON.parse(withHost('{"scope":{},"lists":["L"]}', 'box')))).toEqual(['host', 'scope', 'lists']);
    expect(withHost('not json', 'box')).toBe('not json');
    expect(withHost('', 'box')).toBe('');
  });
});

describe('the copy on a host', () => {
  // The installer is a program of its own (node -e), run here as the host runs it.
  const install = (dir: string, bytes: Buffer) => spawnSync(process.execPath, ['-e', INSTALLER, dir], { input: bytes, encoding: 'utf8' });
  const payload = {
    folder: '0.0.0-test',
    version: '0.0.0',
    files: [{ name: 'dist/tasks.cjs', data: Buffer.from('bundle'), sha256: createHash('sha256').update('bundle').digest('hex') }],
  };

  it('is checked against its digest and renamed into place whole', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-install-')), 'remote', '0.0.0-test');
    const r = install(dir, payloadBytes(payload));
    expect(r.stderr).toBe(`tasks-remote:installed ${dir}\n`);
    expect(fs.readFileSync(path.join(dir, 'dist', 'tasks.cjs'), 'utf8')).toBe('bundle');
    expect(fs.readdirSync(path.dirname(dir))).toEqual(['0.0.0-test']);
  });

  it('arriving damaged, is refused and leaves nothing', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-install-')), 'remote', '0.0.0-test');
    const bytes = payloadBytes(payload);
    bytes.writeUInt8((bytes.at(-1) ?? 0) ^ 1, bytes.length - 1);
    const r = install(dir, bytes);
    expect(r.stderr).toBe('tasks-remote:corrupt dist/tasks.cjs\n');
    expect(fs.readdirSync(path.dirname(dir))).toEqual([]);
  });
});

describe('the kept connection', () => {
  it('stays 600 s without a command unless TASKS_HOST_PERSIST says otherwise; 0 or no keeps none; nonsense is the default', () => {
    expect(persistSeconds({})).toBe(600);
    expect(persistSeconds({ TASKS_HOST_PERSIST: '30' })).toBe(30);
    expect(persistSeconds({ TASKS_HOST_PERSIST: '0' })).toBe(0);
    expect(persistSeconds({ TASKS_HOST_PERSIST: 'no' })).toBe(0);
    expect(persistSeconds({ TASKS_HOST_PERSIST: 'soon' })).toBe(600);
    expect(persistSeconds({ TASKS_HOST_PERSIST: '-5' })).toBe(600);
  });
  it('has one socket per host and ssh command line, in a private folder of the runtime folder', () => {
    const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'tkl-'));
    const env = { XDG_RUNTIME_DIR: runtime };
    const a = linkPaths(parseHost('box'), env);
    expect(a?.socket).toMatch(new RegExp(`^${runtime}/tasks/hosts/[0-9a-f]{16}\\.sock$`));
    expect(fs.statSync(path.join(runtime, 'tasks', 'hosts')).mode & 0o777).toBe(0o700);
    expect(linkPaths(parseHost('ssh://box'), env)?.socket).toBe(a?.socket);
    expect(linkPaths(parseHost('ssh://box:2222'), env)?.socket).not.toBe(a?.socket);
    expect(linkPaths(parseHost('me@box'), env)?.socket).not.toBe(a?.socket);
    expect(linkPaths(parseHost('box'), { ...env, TASKS_SSH_COMMAND: 'ssh -F other' })?.socket).not.toBe(a?.socket);
    // A folder others may enter is not used.
    fs.chmodSync(path.join(runtime, 'tasks', 'hosts'), 0o755);
    expect(linkPaths(parseHost('box'), env)).toBeUndefined();
  });
  it("uses no private folder inside one another user owns or may write: they could swap it for their own between the check and ssh's use", () => {
    // A runtime folder shared with others (XDG_RUNTIME_DIR=/tmp): whoever made `tasks` there first owns it.
    const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'tkp-'));
    fs.chmodSync(runtime, 0o1777);
    const env = { XDG_RUNTIME_DIR: runtime };
    const planted = path.join(runtime, 'tasks');
    fs.mkdirSync(planted, { mode: 0o777 });
    fs.chmodSync(planted, 0o777);
    expect(linkPaths(parseHost('box'), env)).toBeUndefined();
    expect(sshCall(parseHost('box'), 'CMD', { tty: false, env }).args.join(' ')).not.toContain('ControlPath');
    if (process.getuid?.() === 0) {
      fs.chmodSync(planted, 0o755);
      fs.chownSync(planted, 65534, 65534);
      expect(linkPaths(parseHost('box'), env)).toBeUndefined();
      fs.chownSync(planted, 0, 0);
    }
    fs.chmodSync(planted, 0o700);
    expect(linkPaths(parseHost('box'), env)).toBeDefined();
    // A runtime folder others may write without the sticky bit: they may rename our tasks/ away and put theirs in its place.
    fs.chmodSync(runtime, 0o777);
    expect(linkPaths(parseHost('box'), env)).toBeUndefined();
    fs.chmodSync(runtime, 0o700);
    expect(linkPaths(parseHost('box'), env)).toBeDefined();
  });
});
