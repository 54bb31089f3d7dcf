// The file backend of memory, laid out as the Go implementation keeps it: one
// `<key>.md` per note in `$XDG_STATE_HOME/fisk-ai/memory/<namespace>/`, a YAML front
// matter block holding the description, then the body. Directories 0700 and files 0600:
// a note may hold what an operator would not share.
import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { fiskStateHome } from "../runstate/state-dir.js";
import {
  checkKey,
  checkWrite,
  keyProblem,
  NoteError,
  noteExistsError,
  plannedWrite,
  sameNote,
  type Note,
  type NoteItem,
  type NoteStore,
  type WriteOutcome,
} from "./note-store.js";

const EXTENSION = ".md";

/** `$XDG_STATE_HOME/fisk-ai/memory/<namespace>`. */
export function memoryDir(namespace: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(fiskStateHome(env), "memory", namespace);
}
const DELIMITER = "---";

/**
 * The file backend of memory, laid out as the Go implementation keeps it: one `<key>.md` a
 * note, a YAML front matter block holding the description, then the content. The
 * directory is made (0700) at the first write, files are 0600, and a symlink or other
 * non-regular file in place of a note is refused, never followed. Writes are atomic.
 */
export class FileNoteStore implements NoteStore {
  /**
   * @param dir - The namespace's directory, such as memoryDir(namespace) gives; a missing
   * one is an empty store.
   */
  constructor(
    /** The directory the notes are in. */
    readonly dir: string,
  ) {}

  async list(): Promise<NoteItem[]> {
    const items: NoteItem[] = [];
    for (const key of await this.#keys()) {
      // A note removed or replaced by a symlink while listed is left out, not an error.
      const note = await this.#readFile(key).catch(() => undefined);
      if (note !== undefined) items.push({ key, description: note.description });
    }
    return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async read(key: string): Promise<Note | undefined> {
    checkKey(key);
    try {
      return await this.#readFile(key);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async write(key: string, note: Note, overwrite: boolean): Promise<WriteOutcome> {
    const checked = checkWrite(key, note);
    const planned = await plannedWrite(key, await this.read(key), checked, overwrite, async () => (await this.#keys()).length);
    if (planned === "unchanged") return planned;
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Staged beside the note, so the rename or link that puts it in place is atomic.
    const staged = join(this.dir, `.memtmp-${randomBytes(8).toString("hex")}`);
    await fs.writeFile(staged, serialize(checked), { flag: "wx", mode: 0o600 });
    try {
      if (planned === "replaced") {
        await fs.rename(staged, this.#path(key));
        return "replaced";
      }
      try {
        // A link fails where the name exists: of two racing creates, one wins.
        await fs.link(staged, this.#path(key));
        return "created";
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const winner = await this.read(key);
        if (winner !== undefined && sameNote(winner, checked)) return "unchanged";
        if (!overwrite) throw noteExistsError(key);
        await fs.rename(staged, this.#path(key));
        return "replaced";
      }
    } finally {
      await fs.rm(staged, { force: true });
    }
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    try {
      await fs.unlink(this.#path(key));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  #path(key: string): string {
    return join(this.dir, key + EXTENSION);
  }

  /** Keys of the regular `<key>.md` files whose key is valid: staged files and litter are not notes. */
  async #keys(): Promise<string[]> {
    let entries;
    try {
      entries = await fs.readdir(this.dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith(EXTENSION))
      .map((entry) => entry.name.slice(0, -EXTENSION.length))
      .filter((key) => keyProblem(key) === undefined);
  }

  /** Never follows a symlink nor reads a device or fifo planted in the directory. */
  async #readFile(key: string): Promise<Note> {
    let handle;
    try {
      handle = await fs.open(this.#path(key), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP")
        throw new NoteError("ERR_INVALID_NOTE", `note ${key} is a symlink: memory reads only regular files`);
      throw error;
    }
    try {
      if (!(await handle.stat()).isFile()) throw new NoteError("ERR_INVALID_NOTE", `note ${key} is not a regular file`);
      return parse(await handle.readFile("utf8"));
    } finally {
      await handle.close();
    }
  }
}

export function serialize(note: Note): string {
  return `${DELIMITER}\n${stringifyYaml({ description: note.description }, { lineWidth: 0 })}${DELIMITER}\n\n${note.content}`;
}

/**
 * Lenient, as the Go implementation is: a file without front matter (written by hand)
 * is all body with no description, and only the first closing delimiter counts, so a
 * body holding a `---` line is kept whole.
 */
export function parse(text: string): Note {
  const opening = `${DELIMITER}\n`;
  if (!text.startsWith(opening)) return { description: "", content: text };
  const rest = text.slice(opening.length);
  const closing = `\n${DELIMITER}\n`;
  const at = rest.indexOf(closing);
  let header: string;
  let content = "";
  if (at >= 0) {
    header = rest.slice(0, at + 1);
    content = rest.slice(at + closing.length);
  } else if (rest.endsWith(`\n${DELIMITER}`)) {
    header = rest.slice(0, -DELIMITER.length);
  } else {
    return { description: "", content: text };
  }
  if (content.startsWith("\n")) content = content.slice(1);
  try {
    const front = parseYaml(header) as { description?: unknown } | null;
    return { description: typeof front?.description === "string" ? front.description : "", content };
  } catch {
    return { description: "", content: text };
  }
}
