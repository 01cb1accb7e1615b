/**
 * Opens the authorization URL for the user: `$BROWSER` when set (a command; `%s` in it is replaced by
 * the URL, else the URL is appended), else the platform's opener (`open` on macOS, `xdg-open` elsewhere,
 * `start` on Windows). Spawned without a shell, detached from furfly's terminal output. Resolves to
 * whether a browser command was started; the caller prints the URL when it was not.
 */
import { spawn } from 'node:child_process';

export type Env = Readonly<Record<string, string | undefined>>;

export function browserCommand(env: Env, platform: NodeJS.Platform = process.platform): string[] | undefined {
  const fromEnv = env.BROWSER?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    // $BROWSER may list several commands separated by ":" (the convention); the first is used.
    const words = fromEnv.split(':')[0]!.trim().split(/\s+/);
    return words[0] === '' ? undefined : words;
  }
  if (platform === 'darwin') return ['open'];
  // Not `cmd /c start`: cmd.exe would read the `&` of a query string as a command separator.
  if (platform === 'win32') return ['explorer.exe'];
  return ['xdg-open'];
}

export function openBrowser(url: string, env: Env): Promise<boolean> {
  const command = browserCommand(env);
  if (command === undefined) return Promise.resolve(false);
  const args = command.slice(1);
  const withUrl = args.some((a) => a.includes('%s'))
    ? args.map((a) => a.replaceAll('%s', url))
    : [...args, url];
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command[0]!, withUrl, {
        stdio: ['ignore', 'ignore', 'ignore'],
        detached: process.platform !== 'win32',
        env: env as NodeJS.ProcessEnv,
      });
    } catch {
      resolve(false);
      return;
    }
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
