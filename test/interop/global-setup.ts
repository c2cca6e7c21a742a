import type { TestProject } from 'vitest/node';
import { PIN, ensureClaude } from './claude-install.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the pinned Claude Code binary. */
    claudeBin: string;
  }
}

/**
 * Once per interop run, before any test: find or install the pinned Claude Code. When it
 * cannot be had, this throws and the whole run fails with the installer's message; the
 * suite never passes by skipping the agent.
 */
export default function setup(project: TestProject): void {
  const bin = ensureClaude((line) => process.stderr.write(`${line}\n`));
  process.stderr.write(`interop: Claude Code ${PIN.version} at ${bin}\n`);
  project.provide('claudeBin', bin);
}
