/**
 * Variables a sandboxed server may not be given. Its environment is handed to the wrapper that starts
 * the sandbox, and that wrapper runs on the HOST, before any containment: a bash that sources
 * `BASH_ENV` (after expanding `$(…)` in it, so no file is even needed), honours `SHELLOPTS`/`PS4`, and
 * a dynamic linker that loads `LD_PRELOAD`. A registry server.json declares its package's variables
 * and their values, so one such line ran a command uncontained. These names are refused, never
 * passed: a server that needs one is not started, and the message names it.
 */
const EXACT = new Set([
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'BASH_XTRACEFD',
  'PROMPT_COMMAND',
  'BASH_LOADABLES_PATH',
  'EXECIGNORE',
  'GLOBIGNORE',
  'CDPATH',
  'IFS',
  'GCONV_PATH',
  'GETCONF_DIR',
  'GLIBC_TUNABLES',
  'HOSTALIASES',
  'LOCPATH',
  'NLSPATH',
  'RESOLV_HOST_CONF',
]);

/** Whether the host-side wrapper (bash, bubblewrap, the dynamic linker) would act on `name`. */
export function actsOnHost(name: string): boolean {
  return (
    EXACT.has(name) || name.startsWith('LD_') || name.startsWith('BASH_FUNC_') || name.startsWith('MALLOC_')
  );
}

/** The names in `env` a sandboxed server may not be given, in order; empty when none. */
export function hostActingVariables(env: Readonly<Record<string, string | undefined>> | undefined): string[] {
  return Object.keys(env ?? {}).filter(actsOnHost);
}

/** The sentence that says why a server with such variables was not started. */
export function hostActingRefusal(server: string, names: readonly string[]): string {
  return (
    `${server} was not started in the OS sandbox: its environment sets ${names.join(', ')}, which the ` +
    "sandbox's wrapper would act on on the host, outside the sandbox (remove the variable)"
  );
}
