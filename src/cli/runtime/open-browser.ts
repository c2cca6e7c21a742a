import { spawn } from 'node:child_process';

/**
 * Open a URL or a file in the person's default browser: `open` on macOS, `start` on
 * Windows, `xdg-open` elsewhere. What is given here is on the opener's command line, and
 * the browser's, where every local user can read it: never a secret. A failure is told
 * through `warn`, never thrown: whoever asked has the URL printed, and can open it by hand.
 */
export function openBrowser(url: string, platform: NodeJS.Platform, warn: (message: string) => void): void {
  const [cmd, args]: [string, string[]] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', (err) => warn(`could not open a browser (${cmd}: ${err.message}); open the URL yourself`));
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) warn(`could not open a browser (${cmd} exited with ${code}); open the URL yourself`);
    });
    child.unref();
  } catch (err) {
    warn(`could not open a browser (${(err as Error).message}); open the URL yourself`);
  }
}
