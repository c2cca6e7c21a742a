import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TasksError } from '../../core/base/errors.js';
import { VERSION } from '../commands/version.js';
import { LAUNCHER } from './remote-scripts.js';

/** One file of what is copied to a host, by its path in the install folder. */
interface PayloadFile {
  name: string;
  data: Buffer;
  sha256: string;
}

/** What is copied to a host: the single-file bundle and the read commands' one, bin/tasks.js beside them (their code cache), the launcher. */
export interface Payload {
  /** `<version>-<sha>`: the install folder's name, one per build. */
  folder: string;
  version: string;
  files: PayloadFile[];
}

/**
 * The built CLI beside this code: `__dirname` is dist/ when this runs from a bundle
 * (bin/tasks.js runs it as CommonJS); unbundled, dist/ is two folders up.
 */
function distDir(): string {
  if (typeof __dirname === 'string' && fs.existsSync(path.join(__dirname, 'tasks.cjs'))) return __dirname;
  return fileURLToPath(new URL('../../', import.meta.url));
}

/** This build's bin/tasks.js (what starts a kept connection's broker), if it is there. */
export function binPath(): string | undefined {
  const bin = path.join(distDir(), '..', 'bin', 'tasks.js');
  return fs.existsSync(bin) ? bin : undefined;
}

/**
 * The install folder's name: `<version>-<sha>`, the bundle's SHA-256 (the build writes it
 * beside the bundle; each build differs, its id being in the bundle), so that a host keeps
 * one copy of each build. Cheap: the bundle itself is read only when it is copied.
 */
export async function payloadFolder(): Promise<string> {
  const dist = distDir();
  let sha: string;
  try {
    sha = fs.readFileSync(path.join(dist, 'tasks.cjs.sha256'), 'utf8').trim();
  } catch {
    sha = (await digester())(readBuilt(path.join(dist, 'tasks.cjs')));
  }
  return `${VERSION}-${sha.slice(0, 16)}`;
}

/** Everything copied to a host, each file with its digest (checked there before it is used). */
export async function readPayload(folder: string): Promise<Payload> {
  const dist = distDir();
  const digest = await digester();
  const files = [
    { name: 'dist/tasks.cjs', data: readBuilt(path.join(dist, 'tasks.cjs')) },
    // The read commands' bundle (half the size): bin/tasks.js starts list, get and lists from it there. The plain
    // reads' bundle is not copied: it saves a millisecond or two a start, against a command's ssh round trips.
    { name: 'dist/tasks-read.cjs', data: readBuilt(path.join(dist, 'tasks-read.cjs')) },
    { name: 'bin/tasks.cjs', data: readBuilt(path.join(dist, '..', 'bin', 'tasks.js')) },
    { name: 'tasks-remote.cjs', data: Buffer.from(LAUNCHER, 'utf8') },
  ].map((f) => ({ ...f, sha256: digest(f.data) }));
  return { folder, version: VERSION, files };
}

async function digester(): Promise<(data: Buffer) => string> {
  return (await import('./payload-digest.js')).sha256;
}

function readBuilt(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch {
    throw new TasksError('io', `-H needs the single-file build of tasks (${file}), and it is not there`, { hint: 'run npm run build' });
  }
}

/** The installer's input: a JSON line naming each file's size and digest, then the files. */
export function payloadBytes(payload: Payload): Buffer {
  const manifest = { files: payload.files.map((f) => ({ name: f.name, size: f.data.length, sha256: f.sha256 })) };
  return Buffer.concat([Buffer.from(`${JSON.stringify(manifest)}\n`, 'utf8'), ...payload.files.map((f) => f.data)]);
}
