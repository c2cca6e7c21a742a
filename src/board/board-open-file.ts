import fs from 'node:fs';
import path from 'node:path';

/**
 * What `tasks board --open` hands the browser: not the board's URL, whose token would sit
 * in the command line of the opener and of the browser (readable by every local user in
 * /proc/<pid>/cmdline, or `ps`), but a private file that redirects to it, as Jupyter
 * does. The file is made in a folder of its own that only the user can enter (0700,
 * made by mkdtemp, so nobody else can have made it first), in the user's runtime folder
 * (`$XDG_RUNTIME_DIR`, when it is the user's own and private) or else the temporary
 * folder; the file itself is 0600. Both go when the board stops.
 */
export interface OpenFile {
  /** The file to open: a path, no secret in it. */
  file: string;
  /** Remove the file and its folder (quietly: a second call, or a folder gone, is fine). */
  remove(): void;
}

export interface OpenFilePlace {
  /** `$XDG_RUNTIME_DIR` as given (used only when absolute, a folder, the user's own and private). */
  runtimeDir: string | undefined;
  /** The temporary folder (os.tmpdir()). */
  tmpDir: string;
  /** The user's uid; undefined where there are none (then the runtime folder is not checked for its owner). */
  uid: number | undefined;
}

/** Write the file that opens `url`; throws (an I/O error) when it cannot be made. */
export function writeOpenFile(url: string, place: OpenFilePlace): OpenFile {
  const base = privateRuntimeDir(place) ?? place.tmpDir;
  const dir = fs.mkdtempSync(path.join(base, 'tasks-board-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    // mkdtemp makes it 0700; said again in case a umask or a platform did otherwise.
    fs.chmodSync(dir, 0o700);
    const file = path.join(dir, 'open-board.html');
    fs.writeFileSync(file, redirectPage(url), { mode: 0o600, flag: 'wx' });
    return { file, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** `$XDG_RUNTIME_DIR` when it may hold a secret: an absolute path to a real folder of the user's that no one else can enter. */
function privateRuntimeDir(place: OpenFilePlace): string | undefined {
  const dir = place.runtimeDir;
  if (dir === undefined || dir === '' || !path.isAbsolute(dir)) return undefined;
  try {
    const stat = fs.lstatSync(dir);
    if (!stat.isDirectory() || (stat.mode & 0o077) !== 0) return undefined;
    if (place.uid !== undefined && stat.uid !== place.uid) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** A page that goes to `url` at once (no script: a meta refresh), with a link for a browser that does not follow it. */
export function redirectPage(url: string): string {
  const href = escapeHtml(url);
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${href}">`,
    '<title>tasks board</title>',
    '</head>',
    `<body><p>Opening the board. If it does not open, <a href="${href}" rel="noreferrer">go to the board</a>.</p></body>`,
    '</html>',
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
