/**
 * Finds the Docker engine through testcontainers, and turns "no engine" into a message that says how
 * to get one. Every sandbox operation goes through `dockerClient()`.
 */
import type Dockerode from 'dockerode';
import { loadTestcontainers } from './testcontainers.js';

/** No usable Docker engine. The message explains how to start one. */
export class DockerUnavailableError extends Error {
  override readonly name = 'DockerUnavailableError';
}

export const START_DOCKER_HINT =
  'Start a Docker engine (e.g. `sudo systemctl start docker`, Docker Desktop, or `dockerd` run by hand) ' +
  'and make it reachable: the default socket /var/run/docker.sock, or DOCKER_HOST=unix:///path/to/docker.sock.';

export interface DockerClient {
  dockerode: Dockerode;
  /** The engine's own version string, for reports. */
  serverVersion: string;
}

let client: Promise<DockerClient> | undefined;

/** The engine's client, found once per process. Rejects with DockerUnavailableError. */
export function dockerClient(): Promise<DockerClient> {
  client ??= connect().catch((error: unknown) => {
    // A later call may succeed once the user has started the engine.
    client = undefined;
    throw error;
  });
  return client;
}

async function connect(): Promise<DockerClient> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  try {
    const runtime = await getContainerRuntimeClient();
    return {
      dockerode: runtime.container.dockerode,
      serverVersion: String(runtime.info.containerRuntime.serverVersion),
    };
  } catch (error) {
    const where = process.env.DOCKER_HOST ? `DOCKER_HOST (${process.env.DOCKER_HOST})` : 'the default socket';
    throw new DockerUnavailableError(
      `no Docker engine found at ${where}: ${(error as Error).message}. ${START_DOCKER_HINT}`,
    );
  }
}

/** True when an engine answers; never throws. For skipping tests and for `furfly sandbox` messages. */
export async function dockerAvailable(): Promise<boolean> {
  try {
    await dockerClient();
    return true;
  } catch {
    return false;
  }
}
