/**
 * `tasks watch --stream -` fed what is not stream-json at all (binary bytes, plain text):
 * the first five lines of a kind are warned about in full, then one warning says more
 * are counted (`warnings_limited`), and their number comes once, at the end
 * (`lines_skipped`), not one warning a line. With --json, stderr stays one JSON object a
 * line and stdout the NDJSON events. Through the built binary, its stdin a pipe.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { StreamScript } from '../helpers/stream-lines.js';

const LINES = 20_000;

/** Lines of random bytes, each opening with 0xff so that none can be JSON. */
function garbage(): Buffer {
  const lines: Buffer[] = [];
  for (let i = 0; i < LINES; i++) {
    const bytes = crypto.randomBytes(200);
    for (let j = 0; j < bytes.length; j++) if (bytes[j] === 10) bytes[j] = 32;
    bytes[0] = 0xff;
    lines.push(bytes, Buffer.from('\n'));
  }
  return Buffer.concat(lines);
}

function watchStdin(config: string, input: Buffer, args: string[]) {
  fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
  const r = spawnSync(process.execPath, [BIN, 'watch', '--stream', '-', ...args], {
    env: baseEnv(config),
    input,
    cwd: config,
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

type Warning = { warning: { code: string; message: string; kind?: string; count?: number; shown?: number } };

describe('watch --stream - fed binary garbage', () => {
  it('--json: five warnings in full, one that says the rest are counted, the count at the end; stdout NDJSON', () => {
    const r = watchStdin(tempConfig(), garbage(), ['--json']);
    expect(r.code, r.stderr.slice(0, 2000)).toBe(0);
    const warnings = r.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Warning);
    expect(warnings.map((w) => w.warning.code)).toEqual([
      ...Array(5).fill('watch_warning'),
      'warnings_limited',
      'lines_skipped',
      'watch_warning',
    ]);
    for (const [i, w] of warnings.slice(0, 5).entries()) expect(w.warning.message).toMatch(new RegExp(`^line ${i + 1} is not JSON \\(`));
    expect(warnings[5]?.warning).toEqual({
      code: 'warnings_limited',
      message: 'more lines that were not JSON: counted, not shown; how many comes at the end',
      kind: 'not-json',
      shown: 5,
    });
    expect(warnings[6]?.warning).toEqual({
      code: 'lines_skipped',
      message: `${LINES} lines that were not JSON: skipped (the first 5 said above)`,
      kind: 'not-json',
      count: LINES,
    });
    expect(warnings[7]?.warning.message).toMatch(/^no line of the input was JSON/);
    const events = parseNdjson(r.stdout);
    expect(events.map((e) => e.event)).toEqual(['snapshot', 'end']);
    expect(events[1]).toMatchObject({ reason: 'input-ended' });
  });

  it('piped: a few lines of stderr, not one a line', () => {
    const r = watchStdin(tempConfig(), garbage(), []);
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[5]).toBe('warning: more lines that were not JSON: counted, not shown; how many comes at the end');
    expect(lines[6]).toBe(`warning: ${LINES} lines that were not JSON: skipped (the first 5 said above)`);
  });

  it('a watch that ends before its input (--timeout): the count so far is said as it ends', async () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    // The run begins (its init event), then garbage for 3 s; the watch reads its input to its end.
    const writer = path.join(config, 'writer.cjs');
    fs.writeFileSync(
      writer,
      `process.stdout.write(${JSON.stringify(new StreamScript().init().lines[0])} + '\\n');
const end = Date.now() + 3000;
const t = setInterval(() => {
  process.stdout.write(Buffer.concat([Buffer.alloc(100, 0xff), Buffer.from('\\n')]));
  if (Date.now() > end) clearInterval(t);
}, 2);
`,
    );
    const child = spawn('sh', ['-c', `"$NODE" "$WRITER" | "$NODE" "$BIN" watch --stream - --timeout 1s --json`], {
      env: { ...baseEnv(config), NODE: process.execPath, WRITER: writer, BIN },
      cwd: config,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const warnings = stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Warning);
    expect(warnings.map((w) => w.warning.code)).toEqual([...Array(5).fill('watch_warning'), 'warnings_limited', 'lines_skipped']);
    expect(warnings[6]?.warning.count).toBeGreaterThan(5);
    expect(parseNdjson(stdout).at(-1)).toMatchObject({ event: 'end', reason: 'timeout' });
  });
});
