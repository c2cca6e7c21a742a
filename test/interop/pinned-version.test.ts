import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { claudeBin, claudeVersion, runAgent } from './agent.js';
import { reportedVersion } from './claude-install.js';

describe('the Claude Code under test', () => {
  it(`is the release asked for (the pin, or TASKS_INTEROP_CLAUDE_VERSION), by its --version and by its own stream`, async () => {
    expect(reportedVersion(claudeBin())).toBe(`${claudeVersion()} (Claude Code)`);
    const config = tempConfig();
    const { stream, received } = await runAgent({
      configDir: config,
      listId: 'pin',
      turns: [[{ name: 'TaskCreate', input: { subject: 'Check the pin', description: 'version' } }]],
    });
    expect(stream.version).toBe(claudeVersion());
    expect(stream.calls.map((c) => c.text)).toEqual(['Task #1 created successfully: Check the pin']);
    // The model was told the same as the stream says.
    expect(received.map((r) => r.text)).toEqual(['Task #1 created successfully: Check the pin']);
    expect(fs.readdirSync(path.join(config, 'tasks', 'pin')).sort()).toEqual(['.lock', '1.json']);
  });
});
