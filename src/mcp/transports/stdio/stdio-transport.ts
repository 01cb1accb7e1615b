/**
 * The stdio transport: an MCP server as a child process, newline-delimited JSON on its stdin and
 * stdout, stderr kept for error messages. The framing is the FramedStreamTransport's; the process
 * (spawned without a shell, with a minimal environment) is the ChildProcessSource's.
 */
import path from 'node:path';
import { type FramedStreamOptions, FramedStreamTransport } from '../framed/framed-stream-transport.js';
import { type ChildProcessCommand, ChildProcessSource } from './child-process-source.js';

export interface StdioTransportOptions extends ChildProcessCommand, FramedStreamOptions {
  /** Name used in messages; defaults to the command's base name. */
  name?: string;
}

export class StdioTransport extends FramedStreamTransport {
  private readonly process: ChildProcessSource;

  constructor(options: StdioTransportOptions) {
    const source = new ChildProcessSource(options);
    super(options.name ?? path.basename(options.command), source, options);
    this.process = source;
  }

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.process.pid;
  }
}
