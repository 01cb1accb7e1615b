/**
 * Creates, attaches and starts one sandbox container. Shared by the MCP transport (ContainerTransport)
 * and the conformance probe, which both need the same thing: a hardened container whose stdin, stdout
 * and stderr are attached before it starts, so that no early output is lost.
 */
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { containerCommand, type SandboxedCommand } from './container-spec.js';
import { dockerClient } from './docker-engine.js';
import { ensureImage } from './image.js';
import { hostConfigFor, SANDBOX_LABEL, SANDBOX_OWNER_LABEL, type SandboxPolicy } from './policy.js';
import { loadTestcontainers } from './testcontainers.js';

export interface StartedContainer {
  id: string;
  /** The image tag it runs. */
  image: string;
  dockerode: Dockerode;
  /** Docker's multiplexed attach stream: write = the server's stdin, read = framed stdout and stderr. */
  stream: Duplex;
}

export interface StartHooks {
  /**
   * Called between create and start with the attached stream: wire the data listeners here. The id is
   * known from this point on, so a caller can clean up even if the start fails later.
   */
  attached(stream: Duplex, id: string): void;
}

/**
 * Starts the container; on failure removes whatever was created and rethrows. A mount plan with a
 * problem (a folder the sandbox user cannot read) is refused before Docker is asked for anything.
 */
export async function startSandboxContainer(
  spec: SandboxedCommand,
  policy: SandboxPolicy,
  hooks: StartHooks,
): Promise<StartedContainer> {
  if (spec.mount.problem !== undefined) throw new Error(spec.mount.problem);
  const [{ GenericContainer }, { dockerode }, image] = await Promise.all([
    loadTestcontainers(),
    dockerClient(),
    ensureImage(),
  ]);
  const command = containerCommand(spec);
  let id: string | undefined;
  let stream: Duplex | undefined;
  const attach = async (containerId: string): Promise<void> => {
    id = containerId;
    stream = (await dockerode.getContainer(containerId).attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as Duplex;
    // A broken attach shows up as the container's exit; the socket error itself adds nothing.
    stream.on('error', () => {});
    hooks.attached(stream, containerId);
  };

  // testcontainers has no stdin option; its hooks and protected options are the supported way in.
  class StdioContainer extends GenericContainer {
    configure(): this {
      Object.assign(this.createOpts, {
        Env: command.env,
        OpenStdin: true,
        // Docker closes the server's stdin when our attach ends it: that is how a client says "stop".
        StdinOnce: true,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      });
      const hostConfig = hostConfigFor(policy);
      Object.assign(this.hostConfig, hostConfig, {
        AutoRemove: false,
        // The empty folder and the covers over hidden folders, beside the policy's writable /tmp.
        Tmpfs: { ...hostConfig.Tmpfs, ...command.tmpfs },
      });
      return this;
    }
    protected override async containerCreated(containerId: string): Promise<void> {
      await attach(containerId);
    }
  }

  try {
    await new StdioContainer(image.tag)
      .withCommand(command.cmd)
      .withWorkingDir(command.workingDir)
      .withUser(policy.user)
      .withNetworkMode('none')
      .withBindMounts(command.binds)
      .withLabels({ [SANDBOX_LABEL]: '1', [SANDBOX_OWNER_LABEL]: String(process.pid) })
      .configure()
      .start();
  } catch (error) {
    if (id) await removeContainer(dockerode, id).catch(() => {});
    stream?.destroy();
    throw error;
  }
  return { id: id!, image: image.tag, dockerode, stream: stream! };
}

/** Removes by id, by force; a container already gone (or being removed) is not an error. */
export async function removeContainer(dockerode: Dockerode, id: string): Promise<void> {
  try {
    await dockerode.getContainer(id).remove({ force: true, v: true });
  } catch (error) {
    if (!/no such container|is already in progress/i.test((error as Error).message)) throw error;
  }
}
