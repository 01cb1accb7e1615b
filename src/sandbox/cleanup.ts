/** Finds and removes furfly's sandbox containers by label: whatever a crash or a kill left behind. */
import { dockerClient } from './docker-engine.js';
import { SANDBOX_LABEL } from './policy.js';

/** Ids of every container (running or not) that carries the sandbox label. */
export async function labelledContainers(): Promise<string[]> {
  const { dockerode } = await dockerClient();
  const found = await dockerode.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } });
  return found.map((container) => container.Id);
}

/** Removes them by force; returns the ids removed. */
export async function removeLabelledContainers(): Promise<string[]> {
  const { dockerode } = await dockerClient();
  const ids = await labelledContainers();
  await Promise.all(
    ids.map((id) =>
      dockerode
        .getContainer(id)
        .remove({ force: true, v: true })
        .catch(() => {}),
    ),
  );
  return ids;
}
