/**
 * The read-before-change rule shared by edit_file and write_file: the model may only change an existing
 * file it has read in this session, and only if the file is still exactly what it read. Enforced in
 * code because a description alone does not stop a model from guessing at file contents.
 */
import { hashContent, type SessionState } from '../session-state.js';

export function staleReadProblem(
  session: SessionState,
  absolutePath: string,
  current: Buffer,
  displayPath: string,
  currentVersion: { size: number; mtimeMs: number },
): string | undefined {
  const record = session.lastRead(absolutePath);
  if (!record) return `${displayPath} has not been read in this session; read it with read_file first`;
  const unchanged =
    record.sha256 !== undefined
      ? record.sha256 === hashContent(current)
      : record.size === currentVersion.size &&
        record.mtimeMs === currentVersion.mtimeMs &&
        current.length === currentVersion.size;
  if (!unchanged) {
    return `${displayPath} changed on disk since it was last read; read it again before changing it`;
  }
  return undefined;
}
