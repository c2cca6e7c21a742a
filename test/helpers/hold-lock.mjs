// Holds a proper-lockfile lock the way an agent does (Claude Code's options, so the
// lock is refreshed every 5 s), prints "held", and keeps it for argv[3] ms.
// Usage: node hold-lock.mjs <target file> <hold ms>
import lockfile from 'proper-lockfile';

const [target, holdMs] = process.argv.slice(2);
const release = await lockfile.lock(target, { retries: { retries: 30, minTimeout: 5, maxTimeout: 100 }, onCompromised: () => {} });
process.stdout.write('held\n');
setTimeout(() => void release(), Number(holdMs));
