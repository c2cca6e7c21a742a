import type { TestProject } from 'vitest/node';
import { ensureClaude, PIN, versionUnderTest } from './claude-install.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the Claude Code binary under test. */
    claudeBin: string;
    /** Its version: the pin, or $TASKS_INTEROP_CLAUDE_VERSION resolved. */
    claudeVersion: string;
  }
}

/**
 * Once per interop run, before any test: find or install the Claude Code under test. When it
 * cannot be had, this throws and the whole run fails with the installer's message; the
 * suite never passes by skipping the agent.
 */
export default function setup(project: TestProject): void {
  const version = versionUnderTest();
  const bin = ensureClaude(version, (line) => process.stderr.write(`${line}\n`));
  const which =
    version === PIN.version
      ? 'the pinned release'
      : `not the pinned ${PIN.version}: TASKS_INTEROP_CLAUDE_VERSION=${process.env.TASKS_INTEROP_CLAUDE_VERSION}`;
  process.stderr.write(`interop: Claude Code ${version} (${which}) at ${bin}\n`);
  project.provide('claudeBin', bin);
  project.provide('claudeVersion', version);
}
