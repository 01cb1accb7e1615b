/**
 * What a conversation remembers about the files the model has seen. edit_file uses it to refuse edits
 * to files that were never read, or that changed on disk since they were read (a stale `old_string`
 * could otherwise silently clobber someone else's change).
 */
import { createHash } from 'node:crypto';

export interface ReadRecord {
  /**
   * sha256 of the whole file's bytes when it was read (or last written by a tool). Absent when only
   * part of the file was read (read_file stops at its caps): then `size` and `mtimeMs` stand in.
   */
  sha256?: string;
  /** Size and modification time when the file was read in part. */
  size?: number;
  mtimeMs?: number;
  readAt: number;
}

export function hashContent(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

export class SessionState {
  private readonly reads = new Map<string, ReadRecord>();

  /** Records that the model has seen `absolutePath` with exactly this content. */
  recordRead(absolutePath: string, content: Buffer | string): void {
    this.reads.set(absolutePath, { sha256: hashContent(content), readAt: Date.now() });
  }

  /** Records a whole-file read whose hash the caller computed while streaming. */
  recordReadHash(absolutePath: string, sha256: string): void {
    this.reads.set(absolutePath, { sha256, readAt: Date.now() });
  }

  /**
   * Records a read of part of a large file. Hashing the rest would mean reading all of it, which is
   * what read_file's caps avoid; size and modification time identify the version instead.
   */
  recordPartialRead(absolutePath: string, version: { size: number; mtimeMs: number }): void {
    this.reads.set(absolutePath, { size: version.size, mtimeMs: version.mtimeMs, readAt: Date.now() });
  }

  /** A tool wrote the file; the model knows its content, so it counts as read. */
  recordWrite(absolutePath: string, content: Buffer | string): void {
    this.recordRead(absolutePath, content);
  }

  lastRead(absolutePath: string): ReadRecord | undefined {
    return this.reads.get(absolutePath);
  }

  /** Files read so far, in the order they were first read. */
  filesRead(): string[] {
    return [...this.reads.keys()];
  }
}
