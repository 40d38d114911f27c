/** Opening an address in the person's browser, when the machine has a way to. */
import { spawn } from 'node:child_process';

/**
 * Asks the desktop to open `url`: $BROWSER when set (`none` turns it off), else xdg-open on
 * Linux and the BSDs, open on macOS, start on Windows. True when a program was started; false
 * when there is none to ask (the caller has printed the address anyway).
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.BROWSER === 'none') return false;
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    // A missing program arrives as an 'error' event; the address is printed already, so it is not one for the person.
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
