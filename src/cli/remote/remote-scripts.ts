/**
 * What runs on the host, as text: the shell script every command starts with, the
 * launcher installed beside the bundle, and the installer. They speak to the local side
 * through lines on stderr starting with `tasks-remote:` (no-node, not-installed,
 * old-node, cache-unwritable, corrupt, installed) and the shell's exit statuses 81 and
 * 83, which tasks never uses itself; the launcher says `tasks-remote:ready <its clock, ms>`
 * just before tasks runs, so that everything before it is ssh's or the set-up's, and
 * everything after it the command's (and `doctor` can tell a host's clock that is off). The JavaScript here never sets an exit status: a marker says it all.
 */

export const REMOTE_STATUS = {
  noNode: 81,
  notInstalled: 83,
} as const;

export const MARKER = 'tasks-remote:';

/**
 * Quoted for the remote login shell, which reads the command ssh sends: sh, bash, zsh or
 * fish. Single quotes keep everything as it is in all of them but two characters: a
 * quote ends them, and fish reads `\\` and `\'` inside them as escapes. Those two go in
 * double quotes (`"'"`, `"\\"`), which give them back alone in every one of these shells.
 */
export function shellQuote(word: string): string {
  return `'${word.replace(/['\\]/g, (c) => `'"${c === '\\' ? '\\\\' : c}"'`)}'`;
}

/**
 * The remote command. `$1`: run, probe (is this build there? for a command whose
 * stdin must not be read before it runs) or install; `$2`: the install folder's name
 * (<version>-<sha>); the rest: the launcher's arguments, or the installer's source.
 * The folder: `${XDG_CACHE_HOME:-~/.cache}/tasks/remote/<name>` (an XDG_CACHE_HOME that
 * is not absolute is ignored, as tasks does everywhere).
 */
const SCRIPT = `c="\${XDG_CACHE_HOME:-}"
case "$c" in /*) ;; *) c="$HOME/.cache" ;; esac
d="$c/tasks/remote/$2"
command -v node >/dev/null 2>&1 || { echo "${MARKER}no-node" >&2; exit ${REMOTE_STATUS.noNode}; }
if [ "$1" != install ]; then
  [ -f "$d/tasks-remote.cjs" ] || { echo "${MARKER}not-installed" >&2; exit ${REMOTE_STATUS.notInstalled}; }
  [ "$1" = probe ] && exit 0
  shift 2
  exec node "$d/tasks-remote.cjs" "$@"
fi
shift 2
exec node -e "$1" "$d"`;

export function remoteCommand(mode: 'run' | 'probe' | 'install', folder: string, args: readonly string[]): string {
  return ['sh', '-c', SCRIPT, 'tasks-remote', mode, folder, ...args].map(shellQuote).join(' ');
}

/**
 * The launcher (tasks-remote.cjs), in the oldest JavaScript so that an old Node can say
 * it is too old: checks Node >= 20, takes the local terminal's settings (its first
 * argument, JSON), and runs the installed bin/tasks.cjs as the command line's tasks.
 * `link`: stdin is the local side's own pipe, never written: its end means the local
 * side or the connection is gone, and the command stops as at Ctrl-C.
 * `mark`: the ready line goes on stdout too, where the command's output starts after
 * it: what a login shell prints there first (a .bashrc's greeting) is left out. A hang-up of the
 * terminal (the connection dropped under `-tt`) is a Ctrl-C too, so a write finishes
 * its locked step.
 */
export const LAUNCHER = `'use strict';
var major = Number(process.versions.node.split('.')[0]);
if (!(major >= 20)) process.stderr.write('${MARKER}old-node ' + process.version + '\\n');
else launch(JSON.parse(process.argv[2]));

function launch(settings) {
  process.argv.splice(2, 1);
  for (var k in settings.env) {
    if (settings.env[k] === null) delete process.env[k];
    else process.env[k] = settings.env[k];
  }
  var stop = function () { process.kill(process.pid, 'SIGINT'); };
  if (settings.link) {
    process.stdin.on('data', function () {});
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.unref();
  }
  process.on('SIGHUP', stop);
  if (settings.mark) process.stdout.write('${MARKER}ready\\n');
  process.stderr.write('${MARKER}ready ' + Date.now() + '\\n');
  require('./bin/tasks.cjs');
}
`;

/**
 * The installer, run as `node -e <this> <folder>` with the payload on stdin: a JSON line
 * naming each file with its size and SHA-256, then the files one after another. Every
 * file is checked against its digest, written into a new folder beside the target, and
 * the folder renamed into place whole: a folder there is complete or absent, and two
 * installs at once leave one of them.
 */
export const INSTALLER = `'use strict';
var fs = require('fs'), path = require('path'), crypto = require('crypto');
var major = Number(process.versions.node.split('.')[0]);
var say = function (what) { process.stderr.write('${MARKER}' + what + '\\n'); };
if (!(major >= 20)) say('old-node ' + process.version);
else {
  var chunks = [];
  process.stdin.on('data', function (c) { chunks.push(c); });
  process.stdin.on('end', function () { install(process.argv[1], Buffer.concat(chunks)); });
}

function install(dir, all) {
  var nl = all.indexOf(10);
  var manifest = JSON.parse(all.subarray(0, nl).toString('utf8'));
  var at = nl + 1, tmp = dir + '.tmp-' + process.pid;
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.rmSync(tmp, { recursive: true, force: true });
    for (var i = 0; i < manifest.files.length; i++) {
      var f = manifest.files[i], data = all.subarray(at, at + f.size);
      at += f.size;
      if (data.length !== f.size || crypto.createHash('sha256').update(data).digest('hex') !== f.sha256) {
        fs.rmSync(tmp, { recursive: true, force: true });
        return say('corrupt ' + f.name);
      }
      fs.mkdirSync(path.join(tmp, path.dirname(f.name)), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(tmp, f.name), data, { mode: 0o600 });
    }
    try { fs.renameSync(tmp, dir); } catch (e) {
      if (!fs.existsSync(path.join(dir, 'tasks-remote.cjs'))) throw e;
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    var home = process.env.HOME;
    say('installed ' + (home && dir.indexOf(home + '/') === 0 ? '~' + dir.slice(home.length) : dir));
  } catch (e) {
    try { fs.rmSync(tmp, { recursive: true, force: true }); } catch (_) {}
    say('cache-unwritable ' + (e.code || '') + ' ' + path.dirname(dir));
  }
}
`;
