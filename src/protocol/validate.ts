/**
 * Typed API over the precompiled MCP validators in `src/generated/`.
 *
 * CONTRACT (implemented by the schema work; other modules code against these signatures):
 * - No Ajv instance is ever constructed here: only generated standalone functions are called.
 * - Every check returns a readonly list of issues; the list is empty (a shared constant) when valid,
 *   so the hot path allocates nothing on success.
 * - `pointer` is a JSON pointer relative to the value passed in ('' for the root).
 */
import type { ProtocolVersion } from './versions.js';

export interface ValidationIssue {
  pointer: string;
  message: string;
}

export type Issues = readonly ValidationIssue[];

export interface ProtocolValidators {
  readonly version: ProtocolVersion;
  /** Any JSON-RPC message of this version (a batch too, where the version has batches). */
  message(value: unknown): Issues;
  /**
   * The `result` member of a response, by the method of the request it answers
   * (`initialize`, `ping`, `tools/list`, `tools/call`, `resources/list`, ...).
   * A method the schemas do not know is checked only as an object.
   */
  result(method: string, result: unknown): Issues;
  /** The `params` of a request or notification, by method (both directions), e.g. `notifications/progress`. */
  params(method: string, params: unknown): Issues;
  /** Any named definition of this version's schema, e.g. `Tool`, `CallToolResult`, `ContentBlock`. */
  definition(name: string, value: unknown): Issues;
}

export declare function validatorsFor(version: ProtocolVersion): ProtocolValidators;
