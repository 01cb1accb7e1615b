/**
 * The one parser for "which server?" on the command line, shared by `furfly mcp` and
 * `furfly conformance`:
 *
 *   --stdio "<command line>"     a local server, the line split into words (no shell)
 *   -- <command> [args…]         the same, already split by the user's shell
 *   --url <url>                  a Streamable HTTP endpoint
 *   --header "Name: value"       with --url, repeatable
 *
 * It returns plain data; each command builds its own transport or probe from it. Errors never quote a
 * URL, a header value or a command word: any of them may carry a token.
 */
import path from 'node:path';
import { splitCommandLine } from './command-line.js';
import { HeaderConfigError, parseHeaderOption } from './transports/http/headers.js';

/** The options as a CLI parser hands them over: a repeated flag is a list, a bare flag a boolean. */
export interface ServerTargetFlags {
  readonly stdio?: string | string[] | boolean;
  readonly url?: string | string[] | boolean;
  readonly header?: string | string[] | boolean;
}

export type ServerTarget =
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** How messages may name the server: the program and its script, never other words. */
      readonly name: string;
    }
  | {
      readonly transport: 'http';
      readonly url: URL;
      /** Header names as given (checked: RFC 9110 token, not one the transport sets itself). */
      readonly headers: Readonly<Record<string, string>>;
      /** The URL's host: never its path or query, which may hold tokens. */
      readonly name: string;
    };

/** Bad target flags; the message is safe to print (it quotes no value). */
export class TargetUsageError extends Error {
  override readonly name = 'TargetUsageError';
}

/** The last value of a flag given more than once; a bare flag has no value. */
function lastValue(value: string | string[] | boolean | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const last = Array.isArray(value) ? value.at(-1) : value;
  if (typeof last === 'boolean' || last === undefined) throw new TargetUsageError(`${flag} needs a value`);
  return String(last);
}

function headerValues(value: ServerTargetFlags['header']): string[] {
  if (value === undefined) return [];
  if (typeof value === 'boolean') throw new TargetUsageError('--header needs a value');
  return [value].flat().map(String);
}

/**
 * The server the flags name, or `undefined` when they name none (a command may then fall back to a
 * configured server). `command` is what followed `--`.
 */
export function parseServerTarget(
  flags: ServerTargetFlags,
  command: readonly string[] = [],
): ServerTarget | undefined {
  const line = lastValue(flags.stdio, '--stdio');
  const url = lastValue(flags.url, '--url');
  const headers = headerValues(flags.header);
  const given = [
    line !== undefined ? '--stdio' : null,
    url !== undefined ? '--url' : null,
    command.length > 0 ? 'a command after --' : null,
  ].filter((name) => name !== null);
  if (given.length > 1) throw new TargetUsageError(`give one server, not both ${given.join(' and ')}`);
  if (headers.length > 0 && url === undefined) throw new TargetUsageError('--header goes with --url');
  if (url !== undefined) return httpTarget(url, headers);
  if (line !== undefined) return stdioTarget(splitLine(line));
  if (command.length > 0) return stdioTarget(command);
  return undefined;
}

function splitLine(line: string): string[] {
  try {
    const words = splitCommandLine(line);
    if (words.length === 0) throw new TargetUsageError('--stdio: the command line is empty');
    return words;
  } catch (error) {
    if (error instanceof TargetUsageError) throw error;
    throw new TargetUsageError(`--stdio: ${(error as Error).message}`);
  }
}

function stdioTarget(words: readonly string[]): ServerTarget {
  const [command, ...args] = words;
  if (command === undefined || command === '') throw new TargetUsageError('the server command is empty');
  // Only a first argument that looks like a script path joins the name; any other word may be a secret.
  const script = args[0] !== undefined && /[/\\]|\.(?:[cm]?[jt]s|py|rb)$/.test(args[0]) ? args[0] : undefined;
  const name = script ? `${path.basename(command)} ${path.basename(script)}` : path.basename(command);
  return { transport: 'stdio', command, args, name };
}

function httpTarget(text: string, headerOptions: readonly string[]): ServerTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetUsageError('--url must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TargetUsageError('--url must be an absolute http:// or https:// URL');
  }
  // Request errors quote such URLs whole; credentials belong in --header.
  if (url.username !== '' || url.password !== '') {
    throw new TargetUsageError('--url must not contain a user or password; send credentials with --header');
  }
  const headers: Record<string, string> = {};
  for (const option of headerOptions) {
    try {
      const [name, value] = parseHeaderOption(option);
      headers[name] = value;
    } catch (error) {
      if (error instanceof HeaderConfigError) throw new TargetUsageError(`--header: ${error.message}`);
      throw error;
    }
  }
  return { transport: 'http', url, headers, name: url.host };
}
