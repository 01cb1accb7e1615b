/**
 * The sandbox's runtime image, built from the host's own Node.js with `docker import` because no
 * registry can be assumed reachable. It holds node, the libraries it links, a shell and a minimal
 * passwd, nothing else. The tag is content-addressed, so a changed node gives a new image and an
 * unchanged one is reused across runs.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { dockerClient } from './docker-engine.js';
import { SANDBOX_LABEL } from './policy.js';
import { type TarEntry, tarArchive } from './tar.js';

export const IMAGE_REPOSITORY = 'furfly-sandbox-node';
/** Where node sits inside the image; a server command naming the host's node is mapped here. */
export const IMAGE_NODE_PATH = '/usr/bin/node';
export const IMAGE_SHELL_PATH = '/bin/sh';
/** The unprivileged account the server runs as (the traditional `nobody`). */
export const SANDBOX_UID = 65534;
/** Bump when the image layout changes, so old tags are not reused. */
const LAYOUT_VERSION = '1';

const PASSWD = `root:x:0:0:root:/root:/bin/false\nsandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:/tmp:/bin/sh\n`;
const GROUP = `root:x:0:\nsandbox:x:${SANDBOX_UID}:\n`;

interface CopiedFile {
  /** Path inside the image. */
  target: string;
  /** Real file on the host. */
  source: string;
}

export interface ImageInputs {
  tag: string;
  files: CopiedFile[];
}

/** What goes into the image, and its tag. Cheap: stats the files, reads none. */
export function imageInputs(nodePath = process.execPath): ImageInputs {
  const node = realpathSync(nodePath);
  const shell = realpathSync(IMAGE_SHELL_PATH);
  const files = new Map<string, string>([
    [IMAGE_NODE_PATH, node],
    [IMAGE_SHELL_PATH, shell],
  ]);
  for (const library of [...linkedLibraries(node), ...linkedLibraries(shell)]) {
    files.set(library, realpathSync(library));
  }
  const list = [...files]
    .map(([target, source]) => ({ target, source }))
    .sort((a, b) => (a.target < b.target ? -1 : 1));
  // Path, size and mtime stand in for the content: hashing ~100 MB on every start would cost more
  // than it protects against (a file replaced in place with the same size and mtime).
  const hash = createHash('sha256').update(LAYOUT_VERSION).update(PASSWD).update(GROUP);
  for (const { target, source } of list) {
    const stat = statSync(source);
    hash.update(`${target}\0${source}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  const tag = `${IMAGE_REPOSITORY}:${process.versions.node}-${hash.digest('hex').slice(0, 12)}`;
  return { tag, files: list };
}

/** The absolute paths `ldd` reports for an executable (the dynamic loader included); none for a static one. */
export function linkedLibraries(executable: string): string[] {
  const result = spawnSync('ldd', [executable], { encoding: 'utf8' });
  if (result.error)
    throw new Error(`cannot list the libraries of ${executable}: ldd: ${result.error.message}`);
  if (result.status !== 0) {
    if (/not a dynamic executable/.test(`${result.stdout}${result.stderr}`)) return [];
    throw new Error(`cannot list the libraries of ${executable}: ${result.stderr.trim()}`);
  }
  return parseLdd(result.stdout);
}

export function parseLdd(output: string): string[] {
  const paths: string[] = [];
  for (const line of output.split('\n')) {
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
    const match = /(?:=>\s*|^\s*)(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match) paths.push(match[1]!);
  }
  return paths;
}

/** The root filesystem as archive entries: every parent directory, the files, passwd and an empty /tmp. */
export function imageEntries(inputs: ImageInputs): TarEntry[] {
  const files: TarEntry[] = inputs.files.map(({ target, source }) => ({
    kind: 'file',
    path: target,
    mode: statSync(source).mode & 0o755,
    data: readFileSync(source),
  }));
  files.push({ kind: 'file', path: '/etc/passwd', mode: 0o644, data: Buffer.from(PASSWD) });
  files.push({ kind: 'file', path: '/etc/group', mode: 0o644, data: Buffer.from(GROUP) });
  const dirs = new Set<string>();
  for (const file of files) {
    const parts = file.path.split('/').slice(1, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(`/${parts.slice(0, i).join('/')}`);
  }
  const dirEntries: TarEntry[] = [...dirs].sort().map((path) => ({ kind: 'dir', path, mode: 0o755 }));
  // /tmp is replaced by a tmpfs at run time; it exists so the image also works without one.
  dirEntries.push({ kind: 'dir', path: '/tmp', mode: 0o1777 });
  return [...dirEntries, ...files];
}

export interface PreparedImage {
  tag: string;
  /** False when the tag was already present. */
  built: boolean;
}

const prepared = new Map<string, Promise<PreparedImage>>();

/** The image's tag, importing it first if the engine does not have it. Once per tag per process. */
export function ensureImage(inputs: ImageInputs = imageInputs()): Promise<PreparedImage> {
  let pending = prepared.get(inputs.tag);
  if (!pending) {
    pending = buildIfMissing(inputs);
    pending.catch(() => prepared.delete(inputs.tag));
    prepared.set(inputs.tag, pending);
  }
  return pending;
}

async function buildIfMissing(inputs: ImageInputs): Promise<PreparedImage> {
  const { dockerode } = await dockerClient();
  if (await imageExists(inputs.tag)) return { tag: inputs.tag, built: false };
  const [repo, tag] = inputs.tag.split(':') as [string, string];
  const archive = Readable.from(tarArchive(imageEntries(inputs)));
  const progress = await dockerode.importImage(archive, {
    repo,
    tag,
    changes: [`LABEL ${SANDBOX_LABEL}=1`],
  });
  await new Promise<void>((resolve, reject) => {
    dockerode.modem.followProgress(progress, (error: Error | null, events: { error?: string }[]) => {
      const failed = error?.message ?? events.find((event) => event.error)?.error;
      if (failed) reject(new Error(`could not import the sandbox image ${inputs.tag}: ${failed}`));
      else resolve();
    });
  });
  if (!(await imageExists(inputs.tag)))
    throw new Error(`the sandbox image ${inputs.tag} was imported but is missing`);
  return { tag: inputs.tag, built: true };
}

async function imageExists(tag: string): Promise<boolean> {
  const { dockerode } = await dockerClient();
  try {
    await dockerode.getImage(tag).inspect();
    return true;
  } catch {
    return false;
  }
}
