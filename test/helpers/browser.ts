import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axeCore from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * A real browser for the board's tests: Debian's chromium (`apt-get install chromium`),
 * driven by playwright-core, which downloads no browser of its own. Headless, with a
 * fresh profile, nothing reaching the network but the board on 127.0.0.1.
 */
export const CHROMIUM = process.env.TASKS_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return fs.existsSync(CHROMIUM);
}

export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const { chromium } = await import('playwright-core');
  // A fresh profile each time (playwright passes it as --user-data-dir).
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** axe-core's serious and critical violations on the page as it is (evaluated through the debugger: the page's CSP allows no injected script). */
export async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeCore.source);
  const violations = (await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: unknown[] }> } }).axe.run;
    return (await run(document, { resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')} ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`),
    );
}
