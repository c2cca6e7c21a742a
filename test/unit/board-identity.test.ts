import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { identityPath, keepIdentity, loadIdentity } from '../../src/board/board-identity.js';

/** The board's token and port kept between starts: the user's alone, or not trusted. */
function where(over: Partial<Parameters<typeof identityPath>[0]> = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-identity-'));
  return {
    xdgStateHome: path.join(root, 'state'),
    home: path.join(root, 'home'),
    configDir: path.join(root, 'config'),
    host: '127.0.0.1',
    uid: process.getuid?.(),
    ...over,
  };
}

describe('the board identity', () => {
  it('lives in $XDG_STATE_HOME/tasks, else ~/.local/state/tasks; one per config folder and address; nowhere without either', () => {
    const w = where();
    expect(path.dirname(identityPath(w) as string)).toBe(path.join(w.xdgStateHome, 'tasks'));
    expect(path.dirname(identityPath({ ...w, xdgStateHome: undefined }) as string)).toBe(path.join(w.home, '.local', 'state', 'tasks'));
    expect(path.dirname(identityPath({ ...w, xdgStateHome: 'relative' }) as string)).toBe(path.join(w.home, '.local', 'state', 'tasks'));
    expect(identityPath({ ...w, configDir: `${w.configDir}-2` })).not.toBe(identityPath(w));
    expect(identityPath({ ...w, host: '::1' })).not.toBe(identityPath(w));
    expect(identityPath({ ...w, xdgStateHome: undefined, home: undefined })).toBeUndefined();
  });

  it('keeps the token and port in a 0600 file, read back at the next start; --new-token replaces the token and keeps the port', () => {
    const w = where();
    const first = loadIdentity(w, false);
    expect(first.port).toBeUndefined();
    keepIdentity(first, 43_210);
    const file = first.file as string;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(loadIdentity(w, false)).toEqual({ token: first.token, port: 43_210, file });
    const rotated = loadIdentity(w, true);
    expect(rotated.token).not.toBe(first.token);
    expect(rotated.port).toBe(43_210);
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('trusts no file others can read or that is not a well-formed token: a new token instead', () => {
    const w = where();
    const first = loadIdentity(w, false);
    keepIdentity(first, 43_210);
    const file = first.file as string;
    fs.chmodSync(file, 0o644);
    expect(loadIdentity(w, false).token).not.toBe(first.token);
    fs.chmodSync(file, 0o600);
    expect(loadIdentity({ ...w, uid: (w.uid ?? 0) + 1 }, false).token).not.toBe(first.token);
    fs.writeFileSync(file, JSON.stringify({ token: 'short', port: 1 }));
    expect(loadIdentity(w, false).token).not.toBe('short');
    fs.writeFileSync(file, 'not json');
    expect(loadIdentity(w, false).token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    fs.rmSync(file);
    fs.symlinkSync('/etc/hostname', file);
    expect(loadIdentity(w, false).port).toBeUndefined();
  });
});
