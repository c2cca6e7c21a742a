/**
 * Interop: the real Claude Code and `tasks` share one list and one TaskCompleted hook,
 * and both are held to it. Self-contained: a scripted stand-in for the Messages API runs
 * in this process on 127.0.0.1; nothing leaves the machine.
 *
 * Run with the rest of the interop suite: npm run test:interop.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readJson, run } from '../helpers/cli.js';
import { hookWorld, logLines, script, settingsWith, writeSettings, writeTeam } from '../helpers/hooks.js';

// The pinned Claude Code, found or installed once per run by global-setup.ts.
const CLAUDE_BIN = inject('claudeBin');
const haveClaude = fs.existsSync(CLAUDE_BIN);

type ToolCall = { name: string; input: Record<string, unknown> };

/** One assistant turn per request that offers tools, then "done". */
class MockModel {
  private turns: ToolCall[][] = [];
  private server = http.createServer((req, res) => this.answer(req, res));
  private seq = 0;
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  stop(): void {
    this.server.close();
  }

  script(turns: ToolCall[][]): void {
    this.turns = [...turns];
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let parsed: { tools?: unknown[]; stream?: boolean } = {};
      try {
        parsed = JSON.parse(body || '{}') as typeof parsed;
      } catch {
        // not JSON: answer with text
      }
      if (!req.url?.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      const calls = (parsed.tools ?? []).length > 0 ? this.turns.shift() : undefined;
      const id = `msg_mock_${++this.seq}`;
      const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      const events: Array<[string, Record<string, unknown>]> = [
        ['message_start', { message: { id, type: 'message', role: 'assistant', model: 'claude-mock', content: [], stop_reason: null, stop_sequence: null, usage } }],
      ];
      const blocks: Array<ToolCall | { text: string }> = calls ?? [{ text: 'done' }];
      blocks.forEach((b, index) => {
        if ('text' in b) {
          events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }]);
          events.push(['content_block_delta', { index, delta: { type: 'text_delta', text: b.text } }]);
        } else {
          events.push(['content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_mock_${this.seq}_${index}`, name: b.name, input: {} } }]);
          events.push(['content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } }]);
        }
        events.push(['content_block_stop', { index }]);
      });
      events.push(['message_delta', { delta: { stop_reason: calls ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } }]);
      events.push(['message_stop', {}]);
      if (parsed.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const [type, data] of events) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: 'claude-mock', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage }));
      }
    });
  }
}

/** Run Claude Code on the shared list; returns the tool results it got back, in order. */
async function claude(model: MockModel, config: string, project: string, listId: string, turns: ToolCall[][], extraEnv: NodeJS.ProcessEnv = {}): Promise<string[]> {
  model.script(turns);
  const env: NodeJS.ProcessEnv = {
    ...extraEnv,
    PATH: process.env.PATH,
    HOME: project,
    CLAUDE_CONFIG_DIR: config,
    CLAUDE_CODE_TASK_LIST_ID: listId,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`,
    ANTHROPIC_API_KEY: 'sk-mock',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
  const args = ['-p', 'follow the plan', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'TaskCreate TaskUpdate TaskList TaskGet'];
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(CLAUDE_BIN, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(stdout);
    });
  });
  const results: string[] = [];
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { type?: string; message?: { content?: Array<{ type?: string; content?: unknown }> } };
    if (event.type !== 'user') continue;
    for (const c of event.message?.content ?? []) {
      if (c.type === 'tool_result') results.push(typeof c.content === 'string' ? c.content : JSON.stringify(c.content));
    }
  }
  return results;
}

describe.skipIf(!haveClaude)('the real Claude Code and tasks on one list: hooks and inboxes', () => {
  const model = new MockModel();
  beforeAll(() => model.start());
  afterAll(() => model.stop());

  it('both are held to it: blocked while the gate is closed, allowed once it opens', async () => {
    const version = spawnSync(CLAUDE_BIN, ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.info(`Claude Code ${version}`);
    const world = hookWorld();
    const listDir = path.join(world.config, 'tasks', 'shared');
    const log = path.join(world.root, 'hook.log');
    const passFile = path.join(world.project, 'tests-pass');
    // The gate: a stand-in for "run the test suite"; it passes once tests-pass exists.
    const gate = script(
      world,
      'gate.sh',
      `input=$(cat); printf '%s\\n' "$input" >> "${log}"
[ -f "$CLAUDE_PROJECT_DIR/tests-pass" ] && exit 0
echo "test suite fails" >&2; exit 2`,
    );
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const tasks = (args: string[]) => run(world.config, ['-l', 'shared', ...args], { cwd: world.project });

    expect(tasks(['create', 'Agent task', '-d', 'done by the agent']).stdout).toBe('1\n');
    expect(tasks(['create', 'Person task', '-d', 'done from the terminal']).stdout).toBe('2\n');

    // Gate closed: the agent's completion and ours are both refused; nothing changes.
    const agentBlocked = await claude(model, world.config, world.project, 'shared', [[{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }]]);
    expect(agentBlocked.join('\n')).toMatch(/TaskCompleted hook feedback:[\s\S]*test suite fails/);
    const ours = tasks(['update', '2', '--status', 'completed']);
    expect(ours).toMatchObject({ code: 4, stderr: 'error: TaskCompleted hook blocked completing task #2: test suite fails\n' });
    expect(readJson(path.join(listDir, '1.json'))).toMatchObject({ status: 'pending' });
    expect(readJson(path.join(listDir, '2.json'))).toMatchObject({ status: 'pending' });

    // Gate open: both go through.
    fs.writeFileSync(passFile, '');
    const agentAllowed = await claude(model, world.config, world.project, 'shared', [[{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }]]);
    expect(agentAllowed).toContain('Updated task #1 status');
    expect(tasks(['update', '2', '--status', 'completed'])).toMatchObject({ code: 0, stdout: 'Updated task #2 status\n' });
    expect(readJson(path.join(listDir, '1.json'))).toMatchObject({ status: 'completed' });
    expect(readJson(path.join(listDir, '2.json'))).toMatchObject({ status: 'completed' });

    // The hook saw the same kind of input from both, told apart by session_id.
    const inputs = logLines(log) as Array<Record<string, unknown>>;
    expect(inputs.map((i) => [i.hook_event_name, i.task_id, i.cwd])).toEqual([
      ['TaskCompleted', '1', world.project],
      ['TaskCompleted', '2', world.project],
      ['TaskCompleted', '1', world.project],
      ['TaskCompleted', '2', world.project],
    ]);
    expect(inputs.map((i) => String(i.session_id).startsWith('tasks-cli-'))).toEqual([false, true, false, true]);
    for (const input of inputs) {
      expect(input).toMatchObject({ task_subject: expect.any(String), task_description: expect.any(String), transcript_path: expect.any(String) });
    }
  }, 240_000);

  it('an owner change writes the same task_assignment message from the agent and from tasks', async () => {
    const world = hookWorld();
    writeTeam(world, 'core', ['team-lead', 'alice', 'bob']);
    const inbox = (agent: string) => path.join(world.config, 'teams', 'core', 'inboxes', `${agent}.json`);
    const tasks = (args: string[]) => run(world.config, ['-l', 'core', ...args], { cwd: world.project });
    expect(tasks(['create', 'First', '-d', 'one']).stdout).toBe('1\n');
    expect(tasks(['create', 'Second', '-d', 'two']).stdout).toBe('2\n');
    // The agent (agent teams on; its team is the list) assigns #1 to alice, we assign #2.
    const results = await claude(model, world.config, world.project, 'core', [[{ name: 'TaskUpdate', input: { taskId: '1', owner: 'alice' } }]], {
      CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
    });
    expect(results).toContain('Updated task #1 owner');
    expect(tasks(['update', '2', '--owner', 'alice']).code).toBe(0);
    const messages = readJson(inbox('alice')) as Array<Record<string, unknown>>;
    expect(messages).toHaveLength(2);
    const [agent, ours] = messages as [Record<string, unknown>, Record<string, unknown>];
    expect(Object.keys(ours)).toEqual(Object.keys(agent));
    const strip = (m: Record<string, unknown>) => ({ ...m, msg_id: '<id>', timestamp: '<ts>' });
    expect(strip(ours)).toEqual({ ...strip(agent), text: expect.any(String) });
    const agentText = JSON.parse(agent.text as string) as Record<string, unknown>;
    const ourText = JSON.parse(ours.text as string) as Record<string, unknown>;
    expect(Object.keys(ourText)).toEqual(Object.keys(agentText));
    expect({ ...ourText, timestamp: '<ts>' }).toEqual({ ...agentText, taskId: '2', subject: 'Second', description: 'two', timestamp: '<ts>' });
  }, 240_000);
});
