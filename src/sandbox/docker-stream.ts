/**
 * Docker's attach stream without a TTY multiplexes stdout and stderr: each frame is an 8-byte header
 * (stream id, three zero bytes, big-endian payload length) followed by the payload. Frames and reads
 * do not line up, so headers and payloads may arrive split across chunks.
 */

export interface DemuxSink {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
}

const HEADER = 8;
const STDOUT = 1;
const STDERR = 2;

export class DockerStreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes still owed to the current frame's payload, and where they go. */
  private remaining = 0;
  private target: keyof DemuxSink | undefined;

  constructor(private readonly sink: DemuxSink) {}

  push(chunk: Buffer): void {
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length > 0) {
      if (this.remaining > 0) {
        const part = data.subarray(0, this.remaining);
        this.remaining -= part.length;
        // Payload is forwarded as it comes: a huge frame is never held whole.
        if (this.target) this.sink[this.target](part);
        data = data.subarray(part.length);
        continue;
      }
      if (data.length < HEADER) {
        this.pending = Buffer.from(data);
        return;
      }
      const kind = data[0];
      this.target = kind === STDOUT ? 'stdout' : kind === STDERR ? 'stderr' : undefined;
      this.remaining = data.readUInt32BE(4);
      data = data.subarray(HEADER);
    }
  }
}

/** Frames a payload the way Docker does; for tests. */
export function dockerFrame(kind: 1 | 2, payload: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}
