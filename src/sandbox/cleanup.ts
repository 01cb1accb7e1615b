/** Finds and removes furfly's sandbox containers by label: whatever a crash or a kill left behind. */
import { dockerClient } from './docker-engine.js';
import { SANDBOX_LABEL, SANDBOX_OWNER_LABEL } from './policy.js';

/**
 * Ids of every container (running or not) that carries the sandbox label; with `ownerPid`, only those
 * started by that process (tests sweep their own, never a parallel file's).
 */
export async function labelledContainers(ownerPid?: number): Promise<string[]> {
  const { dockerode } = await dockerClient();
  const label = [`${SANDBOX_LABEL}=1`];
  if (ownerPid !== undefined) label.push(`${SANDBOX_OWNER_LABEL}=${ownerPid}`);
  const found = await dockerode.listContainers({ all: true, filters: { label } });
  return found.map((container) => container.Id);
}

/** Removes them by force; returns the ids removed. */
export async function removeLabelledContainers(ownerPid?: number): Promise<string[]> {
  const ids = await labelledContainers(ownerPid);
  await removeContainersById(ids);
  return ids;
}

/** Removes these containers by force, with their volumes; one already gone is not an error. */
export async function removeContainersById(ids: readonly string[]): Promise<void> {
  const { dockerode } = await dockerClient();
  await Promise.all(
    ids.map((id) =>
      dockerode
        .getContainer(id)
        .remove({ force: true, v: true })
        .catch(() => {}),
    ),
  );
}
