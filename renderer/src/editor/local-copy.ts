// The editor's text kept in this browser until the service has stored it, so nothing typed is lost to an
// expired session, a reload, a stopped service or a restart: the file opens with it and saves it as a draft.

/** One file's unsaved text in the browser's storage (tests pass a Map-backed store). */
export interface LocalCopy {
  read(): string | null;
  write(text: string): void;
  clear(): void;
}

/** The part of the Web Storage API this needs. */
export interface TextStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const PREFIX = 'dms-rules.unsaved.';

/** The browser's localStorage, or null where it is not allowed (a private window may refuse it). */
export function browserStorage(): TextStorage | null {
  try {
    // Through globalThis: this file is also built for the unit tests, which have no DOM types.
    return (globalThis as { localStorage?: TextStorage }).localStorage ?? null;
  } catch {
    return null;
  }
}

export function localCopy(fileId: string, storage: TextStorage | null): LocalCopy {
  const key = PREFIX + fileId;
  return {
    read: () => {
      try {
        return storage?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    write: (text) => {
      try {
        storage?.setItem(key, text);
      } catch {
        // Storage full or refused: the autosave still keeps the text on the service.
      }
    },
    clear: () => {
      try {
        storage?.removeItem(key);
      } catch {
        // nothing kept, nothing to clear
      }
    },
  };
}
