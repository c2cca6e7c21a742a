import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './cli.js';

export const AGENT_WRITER = path.join(ROOT, 'test', 'helpers', 'agent-writer.mjs');

export interface AgentRun {
  code: number;
  /** The updates it made, in order. */
  updates: Array<{ id: string; key: string }>;
  stderr: string;
}

/** Run agent-writer.mjs: `count` locked read-merge-writes, as a Claude Code agent makes them. */
export function runAgentWriter(listDir: string, tag: string, count: number, ids: readonly string[]): Promise<AgentRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [AGENT_WRITER, listDir, tag, String(count), ...ids], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const updates = stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { id: string; key: string });
      resolve({ code: code ?? -1, updates, stderr });
    });
  });
}
