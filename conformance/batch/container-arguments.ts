/**
 * The `docker run` (or `podman run`) options a registry server.json may choose for its `oci` package.
 * Its `runtimeArguments` become words of a command the user's machine runs against a container engine
 * that runs as root: `--privileged`, `-v /:/host`, `--pid host`, `--cap-add`, `--device` or
 * `--network host` would hand the registry's image the host, its files or its loopback services.
 * So only options that shape the container from the inside pass; any other word makes the package not
 * runnable, and the reason names the word. A user who trusts the image lists it in a batch file of
 * their own, where they write the command themselves.
 */

const anyValue = () => true;

/** Options that take a value, with the values they may take. */
const WITH_VALUE = new Map<string, (value: string) => boolean>([
  ['-e', anyValue],
  ['--env', anyValue],
  ['-w', anyValue],
  ['--workdir', anyValue],
  ['-u', anyValue],
  ['--user', anyValue],
  ['-m', anyValue],
  ['--memory', anyValue],
  ['--cpus', anyValue],
  ['--pids-limit', anyValue],
  ['--platform', anyValue],
  ['--entrypoint', anyValue],
  ['-l', anyValue],
  ['--label', anyValue],
  ['--shm-size', anyValue],
  ['--stop-timeout', anyValue],
  ['-h', anyValue],
  ['--hostname', anyValue],
  // A tmpfs lives in the container's memory; it mounts nothing of the host.
  ['--tmpfs', anyValue],
  // The engine's default network or none; never the host's (its loopback services) or another container's.
  ['--network', (value) => value === 'none' || value === 'bridge'],
  ['--net', (value) => value === 'none' || value === 'bridge'],
]);

/** Options without a value. */
const SWITCHES = new Set(['--init', '--read-only', '-i', '--interactive', '--rm']);

/** Why these runtime arguments may not reach `docker run`, or undefined when they may. */
export function containerArgumentsProblem(words: readonly string[]): string | undefined {
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? '';
    if (SWITCHES.has(word)) continue;
    const equals = word.indexOf('=');
    const option = word.startsWith('--') && equals > 0 ? word.slice(0, equals) : word;
    const allowed = WITH_VALUE.get(option);
    if (allowed === undefined) {
      return word.startsWith('-')
        ? `its runtimeArguments pass ${JSON.stringify(option)} to the container engine, which furfly does not allow from a server.json (it could give the container the host); list the server in a batch file of your own to run it`
        : `its runtimeArguments hold ${JSON.stringify(word)}, which the container engine would read as the image`;
    }
    let value: string | undefined;
    if (option !== word) value = word.slice(equals + 1);
    else value = words[++index];
    if (value === undefined) return `its runtimeArguments end with ${option} and no value`;
    if (!allowed(value)) {
      return `its runtimeArguments pass ${option} ${JSON.stringify(value)} to the container engine, which furfly does not allow from a server.json (it could give the container the host)`;
    }
  }
  return undefined;
}
