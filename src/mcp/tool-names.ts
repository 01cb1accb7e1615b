/**
 * Public names for remote tools: `mcp__<server>__<tool>`, in the alphabet model APIs accept
 * (`[A-Za-z0-9_-]`, at most 64 characters).
 *
 * Sanitizing and cutting can make two different tools look alike, so a name that overflows, or that
 * collides with a sibling after sanitizing, gets a short hash of the *unsanitized* pair instead of its
 * tail. The hash makes the name stable across runs (no counters that depend on listing order) and
 * distinct for distinct tools. The real name is kept beside the public one, so a call always reaches
 * the server's own tool. Everything here is pure.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME_LENGTH = 64;
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const PREFIX = 'mcp__';
const SEPARATOR = '__';
const HASH_LENGTH = 8;

/** Replaces every character outside `[A-Za-z0-9_-]` with `_`; an empty part becomes `_`. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return cleaned === '' ? '_' : cleaned;
}

/** First 8 hex digits of sha256 over the pair (a NUL between them, so ("ab","c") and ("a","bc") differ). */
export function toolNameHash(server: string, tool: string, salt = 0): string {
  const input = salt === 0 ? `${server}\0${tool}` : `${server}\0${tool}\0${salt}`;
  return createHash('sha256').update(input, 'utf8').digest('hex').slice(0, HASH_LENGTH);
}

/** The name without any collision handling: sanitized, and hashed only if it is too long. */
export function plainToolName(server: string, tool: string): string {
  const name = `${PREFIX}${sanitizeNamePart(server)}${SEPARATOR}${sanitizeNamePart(tool)}`;
  return name.length <= MAX_TOOL_NAME_LENGTH ? name : hashedToolName(server, tool);
}

/** The sanitized name cut short enough to end in `_<hash>`, 64 characters at most. */
export function hashedToolName(server: string, tool: string, salt = 0): string {
  const full = `${PREFIX}${sanitizeNamePart(server)}${SEPARATOR}${sanitizeNamePart(tool)}`;
  const suffix = `_${toolNameHash(server, tool, salt)}`;
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * Public names for all tools of one server, as `real name -> public name`, distinct from each other.
 * Duplicate real names are listed once (the first wins; the caller decides what to do with repeats).
 *
 * A tool keeps its plain name unless another tool of the server ends up with the same one; then every
 * tool in that clash is hashed. Repeats until no two names clash (a clash between two hashes, which
 * needs a sha256 prefix collision, is broken with a salt), so the result is always injective.
 */
export function assignToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const unique = [...new Set(tools)];
  const names = new Map<string, string>(unique.map((tool) => [tool, plainToolName(server, tool)]));
  const hashed = new Set<string>();
  const salts = new Map<string, number>();
  for (;;) {
    const byName = new Map<string, string[]>();
    for (const [tool, name] of names) byName.set(name, [...(byName.get(name) ?? []), tool]);
    const clashes = [...byName.values()].filter((group) => group.length > 1);
    if (clashes.length === 0) return names;
    for (const group of clashes) {
      for (const tool of group) {
        if (!hashed.has(tool)) {
          hashed.add(tool);
          names.set(tool, hashedToolName(server, tool));
        } else if (group.every((member) => hashed.has(member))) {
          // Only hashes clash here: give all but the first another salt.
          if (tool === group[0]) continue;
          const salt = (salts.get(tool) ?? 0) + 1;
          salts.set(tool, salt);
          names.set(tool, hashedToolName(server, tool, salt));
        }
      }
    }
  }
}

/**
 * The names permission rules may use for a remote tool besides its public name, built from the server's
 * config name and the tool's own name, unsanitised and without any hash: `mcp__<server>__<tool>` (the
 * public name as it reads without a collision) and the explicit `mcp:<server>/<tool>`. Neither changes
 * when a sibling's arrival gives the public name a suffix, so a rule keeps holding.
 *
 * Config server names cannot contain `__` or `/`, so both forms name exactly one server; the explicit
 * one also stays unambiguous for servers whose names begin or end with `_`.
 */
export function ruleIdentities(server: string, tool: string): string[] {
  return [`${PREFIX}${server}${SEPARATOR}${tool}`, `${EXPLICIT_PREFIX}${server}/${tool}`];
}

const EXPLICIT_PREFIX = 'mcp:';

export interface RemoteToolReference {
  server: string;
  /** The tool's own name on that server. */
  tool: string;
}

/**
 * Reads a tool name a person wrote (`mcp__<server>__<tool>` or `mcp:<server>/<tool>`) as a reference
 * to a tool of a server, without connecting to anything. A configured server the text starts with wins
 * (the longest, should one name be a prefix of another, as `gh` and `gh_`); otherwise the server is
 * the text up to the first separator (config names cannot contain `__` or `/`). Undefined when the
 * text is of neither form.
 */
export function parseRemoteToolName(
  name: string,
  configuredServers: readonly string[],
): RemoteToolReference | undefined {
  const byLength = [...configuredServers].sort((a, b) => b.length - a.length);
  for (const server of byLength) {
    for (const head of [`${PREFIX}${server}${SEPARATOR}`, `${EXPLICIT_PREFIX}${server}/`]) {
      if (name.startsWith(head) && name.length > head.length)
        return { server, tool: name.slice(head.length) };
    }
  }
  for (const [prefix, separator] of [
    [PREFIX, SEPARATOR],
    [EXPLICIT_PREFIX, '/'],
  ] as const) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const at = rest.indexOf(separator);
    if (at > 0 && at + separator.length < rest.length) {
      return { server: rest.slice(0, at), tool: rest.slice(at + separator.length) };
    }
  }
  return undefined;
}
