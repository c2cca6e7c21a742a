import { CommanderError } from 'commander';
import { TasksError } from '../core/errors.js';
import { App } from './app.js';
import { EXIT } from './exit-codes.js';
import { buildProgram } from './program.js';
import { loadColour } from '../render/style.js';

/**
 * The one place that decides how the process ends: every other module throws or
 * records a code on the App; here it becomes `process.exitCode`. We never call
 * process.exit() after output, which can cut a large write to a pipe.
 */
async function main(argv: string[]): Promise<void> {
  // `tasks list | head -1`: the reader went away; that is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
  const app = new App(process.stdout, process.stderr, process.env);
  if (app.mayColour(argv)) await loadColour();
  const program = await buildProgram(app, argv);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') {
        app.setExit(EXIT.ok);
      } else if (err.code === 'commander.help') {
        // `tasks` with no command: the help was printed to stderr; that is a usage error.
        app.setExit(EXIT.usage);
      } else {
        const message = err.message.replace(/^error:\s*/i, '');
        app.fail(new TasksError('usage', message, { hint: 'add --help for usage' }));
      }
    } else {
      app.fail(err);
      if (process.env.TASKS_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    }
  }
  process.exitCode = app.exitCode;
}

void main(process.argv);
