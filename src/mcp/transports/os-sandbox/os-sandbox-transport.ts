/**
 * A Transport to a stdio MCP server running under `sandbox: os`: the FramedStreamTransport of the plain
 * stdio transport over an OsSandboxSource (the server's process inside the OS sandbox).
 */
import type { OsSandboxPolicy } from '../../../sandbox/os-policy.js';
import { type FramedStreamOptions, FramedStreamTransport } from '../framed/framed-stream-transport.js';
import { type OsSandboxedCommand, OsSandboxSource } from './os-sandbox-source.js';

export interface OsSandboxTransportOptions extends OsSandboxedCommand, FramedStreamOptions {
  /** Name used in messages (never the command line: it may hold tokens). */
  name: string;
}

export class OsSandboxTransport extends FramedStreamTransport {
  private readonly sandboxed: OsSandboxSource;

  constructor(options: OsSandboxTransportOptions) {
    const source = new OsSandboxSource(options.name, options);
    super(options.name, source, options);
    this.sandboxed = source;
  }

  /** The pid of the sandbox's outer process once started (ending it ends everything inside). */
  get pid(): number | undefined {
    return this.sandboxed.pid;
  }

  /** The policy the server runs under, once started. */
  get policy(): OsSandboxPolicy | undefined {
    return this.sandboxed.policy;
  }
}
