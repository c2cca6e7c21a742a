import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * `__proto__` is an ordinary key in JSON. Assigning it in JavaScript (`obj[key] = v`)
 * sets the object's prototype instead of a key, so it was dropped or ignored. Any key
 * JSON allows must round-trip: kept on rewrite, settable, removable.
 */

/** The file's keys as JSON text sees them (JSON.parse keeps "__proto__" as an own key). */
function ownKeys(file: string, pathIn: string[] = []): Record<string, unknown> {
  let value = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const p of pathIn) value = Object.getOwnPropertyDescriptor(value, p)?.value as Record<string, unknown>;
  return Object.fromEntries(Object.getOwnPropertyNames(value).map((k) => [k, Object.getOwnPropertyDescriptor(value, k)?.value]));
}

/** Expected values: from JSON text, where "__proto__" is a key (in a JS literal it is not). */
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

function setup(extra: string): { config: string; file: string } {
  const config = tempConfig();
  const list = path.join(config, 'tasks', 'l');
  writeTask(list, { id: '1', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [] });
  const file = path.join(list, '1.json');
  // Written as text: a JS object literal cannot hold "__proto__" as a key.
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n}$/, `,\n${extra}\n}`));
  return { config, file };
}

describe('__proto__ as a key', () => {
  it('a top-level "__proto__" key is kept when the task is rewritten', async () => {
    const { config, file } = setup('  "__proto__": {"keep": 1}');
    const r = await runInProcess(config, ['-l', 'l', 'update', '1', '--subject', 'new']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(ownKeys(file)).toMatchObject(json('{"subject": "new", "__proto__": {"keep": 1}}'));
    expect(Object.getOwnPropertyNames(ownKeys(file))).toContain('__proto__');
  });

  it('--meta __proto__=x sets it (not "nothing to update")', async () => {
    const { config, file } = setup('  "metadata": {"a": 1}');
    const r = await runInProcess(config, ['-l', 'l', 'update', '1', '--meta', '__proto__=x']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #1 metadata\n' });
    expect(ownKeys(file, ['metadata'])).toEqual(json('{"a": 1, "__proto__": "x"}'));
  });

  it('--meta __proto__:=<json> writes the value, not {}', async () => {
    const { config, file } = setup('  "metadata": {"a": 1}');
    expect((await runInProcess(config, ['-l', 'l', 'update', '1', '--meta', '__proto__:={"b":2}'])).code).toBe(0);
    expect(ownKeys(file, ['metadata'])).toEqual(json('{"a": 1, "__proto__": {"b": 2}}'));
  });

  it('--unset-meta __proto__ removes it', async () => {
    const { config, file } = setup('  "metadata": {"a": 1, "__proto__": "x"}');
    const r = await runInProcess(config, ['-l', 'l', 'update', '1', '--unset-meta', '__proto__']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #1 metadata\n' });
    expect(ownKeys(file, ['metadata'])).toEqual({ a: 1 });
  });

  it('create --meta __proto__=x, and export/import keep it', async () => {
    const config = tempConfig();
    expect((await runInProcess(config, ['-l', 'l', 'create', 's', '--meta', '__proto__=x'])).code).toBe(0);
    const file = path.join(config, 'tasks', 'l', '1.json');
    expect(ownKeys(file, ['metadata'])).toEqual(json('{"__proto__": "x"}'));
    const exported = (await runInProcess(config, ['-l', 'l', 'export', '--format', 'json'])).stdout;
    expect(exported).toContain('"__proto__": "x"');
    const r = await runInProcess(config, ['-l', 'copy', 'import', '-'], { input: exported });
    expect(r.code).toBe(0);
    expect(ownKeys(path.join(config, 'tasks', 'copy', '1.json'), ['metadata'])).toEqual(json('{"__proto__": "x"}'));
  });
});
