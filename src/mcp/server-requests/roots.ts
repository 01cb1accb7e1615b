/**
 * The client's roots (client/roots): the folders furfly works in, as `file://` URIs. The session starts
 * them with the project root and the permission `allow_paths`; `/roots add|remove` changes them for the
 * session. Every change is announced to the listeners (the loader sends `notifications/roots/list_changed`
 * to each legacy server). Roots are guidance for a server, not access control: changing them changes no
 * permission.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Root {
  readonly uri: string;
  readonly name?: string;
}

export class ClientRoots {
  private readonly folders: string[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(folders: readonly string[] = []) {
    for (const folder of folders) this.addQuietly(folder);
  }

  /** The roots as `roots/list` returns them, in the order they were added. */
  list(): Root[] {
    return this.folders.map((folder) => ({
      uri: pathToFileURL(folder).href,
      name: path.basename(folder) || folder,
    }));
  }

  folderList(): readonly string[] {
    return [...this.folders];
  }

  /** Adds an absolute folder; returns false when it was already a root. */
  add(folder: string): boolean {
    if (!this.addQuietly(folder)) return false;
    this.changed();
    return true;
  }

  remove(folder: string): boolean {
    const at = this.folders.indexOf(path.resolve(folder));
    if (at === -1) return false;
    this.folders.splice(at, 1);
    this.changed();
    return true;
  }

  /** Called after every change; returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private addQuietly(folder: string): boolean {
    const absolute = path.resolve(folder);
    if (this.folders.includes(absolute)) return false;
    this.folders.push(absolute);
    return true;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
