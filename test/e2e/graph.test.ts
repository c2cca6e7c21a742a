import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

/** A list as agents leave it: #1 done, #2 in progress, #3 waits for #2, #5 for #3 and #1, #4 alone. */
function demoList(subject5 = 'Deploy') {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'demo');
  const task = (id: string, subject: string, status: string, blocks: string[], blockedBy: string[], extra: Record<string, unknown> = {}) =>
    writeTask(dir, { id, subject, description: '', status, blocks, blockedBy, ...extra });
  task('1', 'Analyse code', 'completed', ['2', '5'], [], { owner: 'researcher' });
  task('2', 'Refactor auth', 'in_progress', ['3'], ['1'], { owner: 'coder', activeForm: 'Refactoring auth' });
  task('3', 'Run tests', 'pending', ['5'], ['2']);
  task('4', 'Write changelog', 'pending', [], []);
  task('5', subject5, 'pending', [], ['3', '1']);
  return { config, dir };
}

describe('tasks graph', () => {
  it('prints the tree piped, plain, one task a line, each under its last blocker', async () => {
    const { config } = demoList();
    const r = await runInProcess(config, ['-l', 'demo', 'graph'], { env: { FORCE_COLOR: '1' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '✔ #1 Analyse code  @researcher',
        '├─▶ #2 Refactor auth  (Refactoring auth)  @coder',
        '│ └─○ #3 Run tests  blocked by #2',
        '│   └─○ #5 Deploy  blocked by #3',
        '└─○ #5 Deploy  ↑ shown under #3',
        '○ #4 Write changelog',
        '',
      ].join('\n'),
    );
  });

  it('prints nodes, edges and layers with --json', async () => {
    const { config } = demoList();
    const r = await runInProcess(config, ['-l', 'demo', 'graph', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      list: string;
      nodes: Array<{ id: string; layer: number; blocked: boolean; openBlockers: string[]; status: string }>;
      edges: Array<{ from: string; to: string; open: boolean; reversed: boolean; points: unknown[] }>;
      layers: string[][];
      cycles: string[][];
    };
    expect(doc.list).toBe('demo');
    expect(doc.nodes.map((n) => [n.id, n.layer, n.blocked])).toEqual([
      ['1', 0, false],
      ['2', 1, false],
      ['3', 2, true],
      ['4', 0, false],
      ['5', 3, true],
    ]);
    expect(doc.edges.map((e) => `${e.from}->${e.to}${e.open ? ' open' : ''}`)).toEqual(['1->2', '1->5', '2->3 open', '3->5 open']);
    expect(doc.layers).toEqual([['1', '4'], ['2'], ['3'], ['5']]);
    expect(doc.cycles).toEqual([]);
    expect(doc.edges.every((e) => !e.reversed && e.points.length >= 2)).toBe(true);
  });

  it('tolerates a cycle that agents made: drawn, marked, warned about', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'loop');
    writeTask(dir, { id: '1', subject: 'A', description: '', status: 'pending', blocks: ['2'], blockedBy: ['2'] });
    writeTask(dir, { id: '2', subject: 'B', description: '', status: 'pending', blocks: ['1'], blockedBy: ['1'] });
    const r = await runInProcess(config, ['-l', 'loop', 'graph']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('○ #1 A  blocked by #2\n└─○ #2 B  blocked by #1\n  └─○ #1 A  ↻ closes a cycle\n');
    expect(r.stderr).toBe('warning: dependency cycle #1 -> #2 -> #1: none of these can start\n');
    const json = JSON.parse((await runInProcess(config, ['-l', 'loop', 'graph', '--json'])).stdout) as {
      cycles: string[][];
      edges: Array<{ reversed: boolean }>;
    };
    expect(json.cycles).toEqual([['1', '2', '1']]);
    expect(json.edges.filter((e) => e.reversed)).toHaveLength(1);
  });

  it('escapes hostile subjects for Mermaid: labels stay labels', async () => {
    const hostile = 'x"]; click t1 call alert(1) %% `m` <i> [y] |z| #1; \u001b[31mr\u202e';
    const { config } = demoList(hostile);
    const r = await runInProcess(config, ['-l', 'demo', 'graph', '--format', 'mermaid']);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('  t5['))!;
    // One quoted label: nothing between its quotes that Mermaid would read as syntax.
    const inner = /^ {2}t5\["(.*)"\]$/.exec(line)![1]!;
    expect(inner).not.toMatch(/["[\]<>`|%{}()\u001b\u202e]/);
    expect(inner).toContain('#34;#93;#59; click t1 call alert#40;1#41;');
    const decoded = inner.replace(/#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));
    expect(decoded).toBe('○ #5 x"]; click t1 call alert(1) %% `m` <i> [y] |z| #1; [31mr');
    expect(r.stdout).toMatch(/^ {2}linkStyle 2,3 stroke:#cf222e,stroke-width:2px$/m);
  });

  it('escapes hostile subjects for DOT: a quoted string the DOT grammar reads back whole', async () => {
    const hostile = 'a "quoted" \\N back\\slash"; "9" -> "1" [label="pwned';
    const { config } = demoList(hostile);
    const r = await runInProcess(config, ['-l', 'demo', 'graph', '--format', 'dot']);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('  "5" [label='))!;
    // A DOT quoted string: no unescaped quote inside; every backslash escapes one character.
    const match = /^ {2}"5" \[label="((?:[^"\\]|\\.)*)", fillcolor="#ffebe9", color="#cf222e"\];$/.exec(line);
    expect(match, line).not.toBeNull();
    expect(match![1]!.replace(/\\(.)/g, '$1')).toBe(`○ #5 ${hostile}`);
    if (spawnSync('dot', ['-V']).status === 0) {
      const parsed = spawnSync('dot', ['-Tjson'], { input: r.stdout, encoding: 'utf8' });
      expect(parsed.status).toBe(0);
      const labels = (JSON.parse(parsed.stdout) as { objects: Array<{ name: string; label: string }> }).objects.map((o) => o.label);
      expect(labels).toContain(`○ #5 ${hostile}`);
    }
  });

  it('leaves internal tasks out unless -a', async () => {
    const { config, dir } = demoList();
    writeTask(dir, {
      id: '6',
      subject: 'internal',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      metadata: { _internal: true },
    });
    expect((await runInProcess(config, ['-l', 'demo', 'graph'])).stdout).not.toContain('#6');
    expect((await runInProcess(config, ['-l', 'demo', 'graph', '-a'])).stdout).toContain('○ #6 internal');
  });

  it('refuses an unknown format (exit 2) and a missing list (exit 3), one line each', async () => {
    const { config } = demoList();
    const bad = await runInProcess(config, ['-l', 'demo', 'graph', '--format', 'svg']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: option '-f, --format <format>' argument 'svg' is invalid/);
    const missing = await runInProcess(config, ['-l', 'nope', 'graph']);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^error: list folder .* does not exist\n/);
  });

  it.skipIf(!tmuxAvailable())('draws the same tree in a terminal', async () => {
    const { config } = demoList();
    // The binary in a terminal (tmux): the tree as a person sees it.
    const screen = await runInTmux(config, ['-l', 'demo', 'graph'], { width: 100, height: 20 });
    expect(screen).toContain('│ └─○ #3 Run tests  blocked by #2');
    expect(screen).toContain('└─○ #5 Deploy  ↑ shown under #3');
    expect(screen).toContain('EXIT=0');
  });
});
