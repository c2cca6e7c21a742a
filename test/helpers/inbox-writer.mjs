// Appends N messages to an inbox the way Claude Code 2.1.328 does: create as [] (wx),
// proper-lockfile with lockfilePath <inbox>.lock and retries {10, 5, 100}, re-read, push,
// write. Usage: node inbox-writer.mjs INBOX N TAG
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

const [inbox, n, tag] = process.argv.slice(2);
fs.mkdirSync(path.dirname(inbox), { recursive: true });
try {
  fs.writeFileSync(inbox, '[]', { flag: 'wx' });
} catch (err) {
  if (err.code !== 'EEXIST') throw err;
}
let failures = 0;
for (let i = 0; i < Number(n); i++) {
  let release;
  try {
    release = await lockfile.lock(inbox, { lockfilePath: `${inbox}.lock`, retries: { retries: 10, minTimeout: 5, maxTimeout: 100 } });
  } catch {
    failures++;
    continue;
  }
  try {
    const messages = JSON.parse(fs.readFileSync(inbox, 'utf8'));
    messages.push({ from: 'writer', text: `${tag}-${i}`, timestamp: new Date().toISOString(), read: false });
    const tmp = `${inbox}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(messages, null, 2));
    fs.renameSync(tmp, inbox);
  } finally {
    await release();
  }
}
process.stdout.write(`${failures}\n`);
