/**
 * A minimal ustar writer: just enough to hand `docker import` a root filesystem (directories and
 * regular files) without depending on a `tar` binary or another package.
 */

export type TarEntry =
  | { kind: 'dir'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; data: Buffer };

const BLOCK = 512;

/** The archive as a list of buffers (headers, data, padding, end marker), ready to stream. */
export function tarArchive(entries: readonly TarEntry[]): Buffer[] {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const size = entry.kind === 'file' ? entry.data.length : 0;
    parts.push(header(entry.kind === 'dir' ? `${entry.path}/` : entry.path, entry.mode, size, entry.kind));
    if (entry.kind === 'file') {
      parts.push(entry.data);
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return parts;
}

function header(name: string, mode: number, size: number, kind: TarEntry['kind']): Buffer {
  const block = Buffer.alloc(BLOCK);
  const [prefix, rest] = splitName(name.replace(/^\/+/, ''));
  block.write(rest, 0, 100, 'utf8');
  octal(block, 100, 8, mode);
  octal(block, 108, 8, 0); // uid: root owns the image's files; the server runs as another user
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, 0); // mtime 0: the same inputs give the same archive
  block.write('        ', 148, 8, 'ascii'); // checksum field counts as spaces while summing
  block.write(kind === 'dir' ? '5' : '0', 156, 1, 'ascii');
  block.write('ustar\u0000', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'ascii');
  return block;
}

/** ustar keeps names up to 100 bytes, plus a 155-byte prefix split at a slash. */
function splitName(name: string): [string, string] {
  if (Buffer.byteLength(name) <= 100) return ['', name];
  for (let cut = name.lastIndexOf('/'); cut > 0; cut = name.lastIndexOf('/', cut - 1)) {
    const prefix = name.slice(0, cut);
    const rest = name.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return [prefix, rest];
  }
  throw new Error(`path too long for the image archive: ${name}`);
}

function octal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, length, 'ascii');
}
