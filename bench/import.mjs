#!/usr/bin/env node
// Figures for `tasks import`: parse, plan and write times, and how long each hold of the
// list lock lasted (docs/task-store.md section 5 wants each well under a second; agents
// give up after ~2.6 s). usage: npm run build && node bench/import.mjs [todos=2000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dist = new URL('../dist/core/', import.meta.url);
const { parseImportText } = await import(new URL('snapshots/import-parse.js', dist));
const { planImport } = await import(new URL('snapshots/import-plan.js', dist));
const { applyImport } = await import(new URL('snapshots/import-apply.js', dist));

const n = Number(process.argv[2] ?? 2000);
const todos = Array.from({ length: n }, (_, i) => ({ content: `Step ${i + 1}`, status: 'pending', activeForm: `Doing step ${i + 1}` }));
const text = JSON.stringify({ todos });
const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-')), 'list');

let t = performance.now();
const snapshot = parseImportText(text, 'auto');
const parseMs = performance.now() - t;
t = performance.now();
const plan = planImport([], snapshot, { chain: true });
const planMs = performance.now() - t;

// applyImport calls the clock when a hold starts (inside the lock) and right after it ends.
const stamps = [];
t = performance.now();
await applyImport(dir, plan, {
  now: () => {
    const v = performance.now();
    stamps.push(v);
    return v;
  },
});
const applyMs = performance.now() - t;
const holds = [];
for (let i = 0; i + 1 < stamps.length; i += 2) holds.push(stamps[i + 1] - stamps[i]);
holds.sort((a, b) => a - b);
const q = (p) => holds[Math.min(holds.length - 1, Math.floor(p * holds.length))]?.toFixed(1);

console.log(`todos: ${n} (chained), node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`);
console.log(
  `parse ${parseMs.toFixed(1)} ms, plan ${planMs.toFixed(1)} ms, write ${applyMs.toFixed(0)} ms (${(applyMs / n).toFixed(2)} ms a task)`,
);
console.log(`list-lock holds: ${holds.length}, p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${q(1)} ms`);
fs.rmSync(path.dirname(dir), { recursive: true, force: true });
