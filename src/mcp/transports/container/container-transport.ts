/**
 * A Transport to a stdio MCP server running in a hardened container (see src/sandbox/policy.ts): the
 * same FramedStreamTransport as the plain stdio transport, over the container's attach stream
 * (DockerAttachSource) instead of a child process's pipes.
 */
import type { MountPlan } from '../../../sandbox/mount-plan.js';
import { type SandboxPolicy, sandboxPolicy } from '../../../sandbox/policy.js';
import { type FramedStreamOptions, FramedStreamTransport } from '../framed/framed-stream-transport.js';
import { DockerAttachSource, type SandboxedServerCommand } from './docker-attach-source.js';

export interface ContainerTransportOptions extends SandboxedServerCommand, FramedStreamOptions {
  /** Name used in messages (never the command line: it may hold tokens). */
  name: string;
  policy?: SandboxPolicy;
}

export class ContainerTransport extends FramedStreamTransport {
  readonly policy: SandboxPolicy;
  private readonly container: DockerAttachSource;

  constructor(options: ContainerTransportOptions) {
    const policy = options.policy ?? sandboxPolicy();
    const source = new DockerAttachSource(options.name, options, policy);
    super(options.name, source, options);
    this.policy = policy;
    this.container = source;
  }

  /** The container's id once created; every cleanup goes by it. */
  get containerId(): string | undefined {
    return this.container.containerId;
  }

  /** Milliseconds from start() to a running container with attached streams (image build included). */
  get startupMs(): number | undefined {
    return this.container.startupMs;
  }

  /** What the server sees of the host, once start() planned it. */
  get mount(): MountPlan | undefined {
    return this.container.mount;
  }
}
