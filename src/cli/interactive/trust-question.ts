/**
 * The question an interactive session asks before it starts, when the project config has risky parts
 * (servers, providers, a looser mode, allow rules, allow_paths; see config/trust.ts) that the person has
 * not trusted yet, or that changed since they did. It shows what the project file would do and asks:
 *
 *   y  trust, and remember it (in the user folder, for these exact parts)
 *   o  trust for this session only
 *   n  run without those parts (the default; also at the end of input)
 *
 * Only a terminal session asks: one-shot and piped sessions never do (their input is a script written
 * before anyone saw the question) and run without the risky parts.
 * The I/O is injected, so tests drive the question without a terminal.
 */
import type { LoadOptions } from '../../config/load.js';
import { loadConfig } from '../../config/load.js';
import { userConfigDir } from '../../config/paths.js';
import type { ProjectTrust } from '../../config/project-trust.js';
import { describeRiskyParts } from '../../config/trust-report.js';
import { recordTrust } from '../../config/trust-store.js';

export type TrustAnswer = 'remember' | 'session' | 'no';

export interface QuestionIo {
  write(text: string): void;
  /** The next line the person typed; undefined at the end of input. */
  nextLine(): Promise<string | undefined>;
}

export async function askProjectTrust(trust: ProjectTrust, io: QuestionIo): Promise<TrustAnswer> {
  io.write(`${describeRiskyParts(trust)}\n`);
  if (trust.storeProblem !== undefined) io.write(`(${trust.storeProblem})\n`);
  for (;;) {
    io.write(
      'Trust this project config? y = yes, remember; o = only this session; n = no, run without these parts\n? ',
    );
    const answer = (await io.nextLine())?.trim().toLowerCase();
    if (answer === undefined) {
      io.write('\n');
      return 'no';
    }
    if (answer === 'y' || answer === 'yes') return 'remember';
    if (answer === 'o' || answer === 'once' || answer === 'session') return 'session';
    if (answer === 'n' || answer === 'no' || answer === '') return 'no';
    io.write('Please answer y, o or n.\n');
  }
}

/**
 * Decides the session's trust: asks when the project has untrusted risky parts, stores a "remember"
 * answer, and returns what the runtime should be told (`trustProject`). A config that cannot be loaded
 * is not asked about: the runtime reports its errors.
 */
export async function settleProjectTrust(
  options: Pick<LoadOptions, 'cwd' | 'configFile' | 'env' | 'homeDir'>,
  io: QuestionIo,
): Promise<boolean | undefined> {
  const loaded = loadConfig(options);
  if (!loaded.ok || loaded.trust.status !== 'not-trusted') return undefined;
  const trust = loaded.trust;
  const answer = await askProjectTrust(trust, io);
  if (answer === 'no') return false;
  if (answer === 'session') return true;
  try {
    recordTrust(userConfigDir(options.env, options.homeDir), trust.projectKey, trust.fingerprint);
    io.write(`Trusted. furfly asks again if these parts change (undo: furfly trust --revoke).\n`);
  } catch (error) {
    io.write(
      `furfly: could not store the trust (${(error as NodeJS.ErrnoException).code ?? 'error'}); trusted for this session only.\n`,
    );
  }
  return true;
}
