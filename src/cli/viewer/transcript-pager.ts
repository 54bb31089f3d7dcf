// What the full-screen viewer shows, without the terminal: a window of a run's records
// read from the store as the reader moves (never the whole journal), laid out in rows of
// the screen's width, with a position, folds, and a search that reads on past the window.
// Every operation runs after the one before it, so keys pressed during a read wait their turn.
import type { JournalRecord } from "../../runstate/records.js";
import type { Store } from "../../runstate/store.js";
import { ChildSessions } from "../child-sessions.js";
import { childHead, plainEntry } from "../session-show.js";
import { isFoldable, startsTurn, TranscriptReader, type ChildLinks, type TranscriptEntry } from "../transcript-entries.js";
import { oneRow, visibleText, wrapText } from "./screen-text.js";
import { counted } from "../counted.js";

/** Records read at once when the reader moves past the window. */
const CHUNK = 200;
/** The most records the window keeps: far more than a screen, far less than a long journal. */
const WINDOW = 2000;
/** Records read before a window's first, so its results are named after their calls. */
const PRIME = 32;

/** How a row is drawn: the kind of what it belongs to, and whether it is the fold Enter toggles. */
export interface ScreenRow {
  text: string;
  style: "user" | "text" | "dim" | "call" | "error" | "marker" | "blank";
  current: boolean;
}

interface Item {
  entry: TranscriptEntry;
  /** Which entry of its record: folds are kept by seq and this. */
  index: number;
  /** A blank row above: a new turn starts here. */
  gap: boolean;
}

/** A fold's key, so that it stays open when its record leaves the window and comes back. */
const foldKey = (item: Item) => `${item.entry.seq}:${item.index}`;

export class TranscriptPager {
  readonly #store: Store;
  readonly #runId: string;
  #width: number;
  #height: number;
  /** The window: the items of records first..last, in order. */
  #items: Item[] = [];
  #first = 1;
  #last = 0;
  /** The highest seq known to be stored: the run's last record, as far as anyone has read. */
  #known: number;
  #top = { item: 0, row: 0 };
  readonly #open = new Set<string>();
  #term: string | undefined;
  #notice = "";
  #queue: Promise<void> = Promise.resolve();
  readonly #rowCache = new WeakMap<Item, { width: number; open: boolean; rows: ScreenRow[] }>();
  readonly #children: ChildSessions;
  /** The run's calls' child sessions, read at the start. */
  #links: ChildLinks = new Map();
  /** The work of each child session opened so far, as the plain print writes it. */
  readonly #childWork = new Map<string, string>();

  /** `known` is the run's last seq as its summary gave it; the pager shows `height` rows of body. */
  constructor(store: Store, runId: string, known: number, size: { width: number; height: number }) {
    this.#store = store;
    this.#runId = runId;
    this.#known = known;
    this.#width = size.width;
    this.#height = size.height;
    this.#children = new ChildSessions(store);
  }

  /** A reader of the run's records that folds in its calls' child sessions. */
  #newReader(): TranscriptReader {
    return new TranscriptReader(this.#links);
  }

  /** Runs `operation` after every one queued before it; a failure is the caller's, once. */
  run(operation: (pager: this) => Promise<void>): Promise<void> {
    const next = this.#queue.then(() => operation(this));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Reads the first screen, and no record past it: the rest is read as the reader moves. */
  async start(): Promise<void> {
    this.#links = await this.#children.linksOf(this.#runId);
    await this.#loadAt(1, () => this.#rowsBelowTop() > this.#height);
  }

  resize(size: { width: number; height: number }): void {
    this.#width = size.width;
    this.#height = size.height;
  }

  /** The body's rows as they are to be drawn, exactly `height` of them. */
  rows(): ScreenRow[] {
    const rows: ScreenRow[] = [];
    const current = this.#currentItem();
    for (let index = this.#top.item; index < this.#items.length && rows.length < this.#height; index++) {
      const item = this.#items[index] as Item;
      const own = this.#rowsOf(item);
      const from = index === this.#top.item ? this.#top.row : 0;
      for (let row = from; row < own.length && rows.length < this.#height; row++) {
        const shown = own[row] as ScreenRow;
        rows.push(index === current && row === (item.gap ? 1 : 0) ? { ...shown, current: true } : shown);
      }
    }
    while (rows.length < this.#height) rows.push({ text: this.#last < this.#known ? "…" : "", style: "blank", current: false });
    return rows;
  }

  /** Where the reader is: the seq at the top of the screen of the last known, and how far through. */
  position(): string {
    const seq = this.#items[this.#top.item]?.entry.seq ?? this.#first;
    const atEnd = this.#last >= this.#known && this.#rowsBelowTop() <= this.#height;
    return `record ${seq} of ${this.#known} (${atEnd ? "end" : `${Math.floor((100 * seq) / Math.max(1, this.#known))}%`})`;
  }

  /** The search in effect and what it last found or did not. */
  searchStatus(): string {
    const term = this.#term === undefined ? "" : `/${visibleText(this.#term)}`;
    return [term, this.#notice].filter((part) => part !== "").join(" ");
  }

  /** Whether the last row of the run is on screen: a follower keeps it there. */
  atEnd(): boolean {
    return this.#last >= this.#known && this.#rowsBelowTop() <= this.#height;
  }

  async down(rows: number): Promise<void> {
    this.#notice = "";
    for (let moved = 0; moved < rows; moved++) {
      if (this.#rowsBelowTop() <= this.#height) {
        // The end of the window on screen: read on, or stop at the run's end.
        if (this.#last >= this.#known || !(await this.#readForward())) break;
        if (this.#rowsBelowTop() <= this.#height) continue;
      }
      this.#stepDown();
    }
  }

  async up(rows: number): Promise<void> {
    this.#notice = "";
    for (let moved = 0; moved < rows; moved++) {
      if (this.#top.item === 0 && this.#top.row === 0) {
        if (this.#first <= 1) break;
        await this.#readBackward();
      }
      this.#stepUp();
    }
  }

  pageDown(): Promise<void> {
    return this.down(Math.max(1, this.#height - 1));
  }

  pageUp(): Promise<void> {
    return this.up(Math.max(1, this.#height - 1));
  }

  async home(): Promise<void> {
    this.#notice = "";
    if (this.#first > 1) await this.#loadAt(1);
    this.#top = { item: 0, row: 0 };
  }

  async end(): Promise<void> {
    this.#notice = "";
    this.#known = Math.max(this.#known, (await this.#store.summarize(this.#runId)).lastSeq);
    if (this.#last < this.#known - CHUNK || this.#items.length === 0) await this.#loadAt(Math.max(1, this.#known - CHUNK));
    // On to what the store holds now, which may be past what its summary said.
    while (await this.#readForward());
    this.#toBottom();
  }

  /** Opens or closes the fold that Enter acts on: the first foldable entry on screen. */
  async toggle(): Promise<void> {
    const index = this.#currentItem();
    const item = index === undefined ? undefined : this.#items[index];
    if (item === undefined) {
      this.#notice = "no folded entry on screen";
      return;
    }
    const key = foldKey(item);
    if (this.#open.delete(key)) return;
    // A child session's work is read the first time it is opened.
    if (item.entry.kind === "child" && !this.#childWork.has(item.entry.runId)) this.#childWork.set(item.entry.runId, await this.#workOf(item.entry.runId));
    this.#open.add(key);
  }

  /** A child session's transcript, its own children's work set in by depth. */
  async #workOf(runId: string): Promise<string> {
    const lines: string[] = [];
    for await (const { entry, depth } of this.#children.entriesOf(runId)) {
      const prefix = "│ ".repeat(depth - 1);
      const text = entry.kind === "child" ? childHead(entry) : plainEntry(entry, false);
      lines.push(`${prefix}${text.split("\n").join(`\n${prefix}`)}`);
    }
    return lines.join("\n");
  }

  /** Takes records a follower read after the last known one; keeps the end on screen if it was. */
  append(records: readonly JournalRecord[]): void {
    const following = this.atEnd();
    for (const record of records) {
      this.#known = Math.max(this.#known, record.seq);
      // Records beyond a window that is not at the end are read when the reader gets there.
      if (record.seq === this.#last + 1) this.#add(record);
    }
    this.#trimFront();
    if (following) this.#toBottom();
  }

  /** Searches forward from the top of the screen (`backward`: back from it) for `term`, case-insensitively. */
  async search(term: string, backward = false): Promise<void> {
    this.#term = term;
    this.#notice = "";
    if (term === "") return;
    const needle = term.toLowerCase();
    const matches = (item: Item) => entryText(item.entry).toLowerCase().includes(needle);
    if (backward) {
      for (let index = this.#top.item - 1; index >= 0; index--) if (matches(this.#items[index] as Item)) return this.#showMatch(index);
      let found: { seq: number; index: number } | undefined;
      await this.#scan(1, this.#first - 1, (item) => {
        if (matches(item)) found = { seq: item.entry.seq, index: item.index };
        return false;
      });
      return found === undefined ? this.#notFound() : this.#jumpTo(found);
    }
    for (let index = this.#top.item + 1; index < this.#items.length; index++) if (matches(this.#items[index] as Item)) return this.#showMatch(index);
    let found: { seq: number; index: number } | undefined;
    await this.#scan(this.#last + 1, Number.POSITIVE_INFINITY, (item) => {
      if (matches(item)) found = { seq: item.entry.seq, index: item.index };
      return found !== undefined;
    });
    return found === undefined ? this.#notFound() : this.#jumpTo(found);
  }

  /** The last search again, forward (n) or backward (N). */
  repeatSearch(backward: boolean): Promise<void> {
    if (this.#term === undefined) {
      this.#notice = "no search yet: / searches";
      return Promise.resolve();
    }
    return this.search(this.#term, backward);
  }

  #notFound(): void {
    this.#notice = "not found";
  }

  /** The match at window index `index` at the top of the screen, its fold opened. */
  #showMatch(index: number): void {
    const item = this.#items[index] as Item;
    // A child session's fold opens with Enter, which reads its work.
    if (isFoldable(item.entry) && item.entry.kind !== "child") this.#open.add(foldKey(item));
    this.#top = { item: index, row: item.gap ? 1 : 0 };
    this.#notice = "";
  }

  async #jumpTo(found: { seq: number; index: number }): Promise<void> {
    await this.#loadAt(found.seq);
    const index = this.#items.findIndex((item) => item.entry.seq === found.seq && item.index === found.index);
    this.#showMatch(Math.max(0, index));
  }

  /** Reads records from..through (stopping at the run's end) outside the window, through a reader of their own, until `visit` says stop. */
  async #scan(from: number, through: number, visit: (item: Item) => boolean): Promise<void> {
    if (from > through) return;
    const reader = this.#newReader();
    for await (const record of this.#store.readRecords(this.#runId, Math.max(1, from - PRIME))) {
      if (record.seq > through) return;
      this.#known = Math.max(this.#known, record.seq);
      const entries = reader.entriesOf(record);
      if (record.seq < from) continue;
      for (const [index, entry] of entries.entries()) if (visit({ entry, index, gap: false })) return;
    }
  }

  /** The first foldable item that begins on screen. */
  #currentItem(): number | undefined {
    let rows = 0;
    for (let index = this.#top.item; index < this.#items.length && rows < this.#height; index++) {
      const item = this.#items[index] as Item;
      const starts = index > this.#top.item || this.#top.row <= (item.gap ? 1 : 0);
      if (starts && isFoldable(item.entry)) return index;
      rows += this.#rowsOf(item).length - (index === this.#top.item ? this.#top.row : 0);
    }
    return undefined;
  }

  #rowsBelowTop(): number {
    let rows = -this.#top.row;
    for (let index = this.#top.item; index < this.#items.length && rows <= this.#height; index++) rows += this.#rowsOf(this.#items[index] as Item).length;
    return rows;
  }

  #stepDown(): void {
    const rows = this.#rowsOf(this.#items[this.#top.item] as Item).length;
    if (this.#top.row + 1 < rows) this.#top.row++;
    else if (this.#top.item + 1 < this.#items.length) this.#top = { item: this.#top.item + 1, row: 0 };
  }

  #stepUp(): void {
    if (this.#top.row > 0) this.#top.row--;
    else if (this.#top.item > 0) {
      const item = this.#top.item - 1;
      this.#top = { item, row: this.#rowsOf(this.#items[item] as Item).length - 1 };
    }
  }

  /** The top placed so that the window's last row is the screen's last. */
  #toBottom(): void {
    let rows = 0;
    for (let index = this.#items.length - 1; index >= 0; index--) {
      const own = this.#rowsOf(this.#items[index] as Item).length;
      if (rows + own >= this.#height) {
        this.#top = { item: index, row: rows + own - this.#height };
        return;
      }
      rows += own;
    }
    this.#top = { item: 0, row: 0 };
  }

  /** A fresh window starting at `seq`: a chunk of records, or fewer once `enough` says so. */
  async #loadAt(seq: number, enough: () => boolean = () => false): Promise<void> {
    this.#items = [];
    this.#first = seq;
    this.#last = seq - 1;
    this.#top = { item: 0, row: 0 };
    const reader = this.#newReader();
    this.#reader = reader;
    let read = 0;
    for await (const record of this.#store.readRecords(this.#runId, Math.max(1, seq - PRIME))) {
      this.#known = Math.max(this.#known, record.seq);
      if (record.seq < seq) {
        reader.entriesOf(record);
        continue;
      }
      this.#add(record);
      if (++read >= CHUNK || enough()) break;
    }
  }

  /** The reader the window's records were read through, which reads on after its last; undefined once records were dropped from the end. */
  #reader: TranscriptReader | undefined;

  #add(record: JournalRecord): void {
    this.#reader ??= this.#newReader();
    const entries = this.#reader.entriesOf(record);
    entries.forEach((entry, index) => {
      this.#items.push({ entry, index, gap: this.#items.length > 0 && startsTurn(entry, index) });
    });
    this.#last = record.seq;
  }

  /** Reads the next chunk after the window; false when there was nothing more. */
  async #readForward(): Promise<boolean> {
    const before = this.#last;
    let read = 0;
    const primed = this.#reader === undefined;
    this.#reader ??= this.#newReader();
    for await (const record of this.#store.readRecords(this.#runId, primed ? Math.max(1, before + 1 - PRIME) : before + 1)) {
      this.#known = Math.max(this.#known, record.seq);
      if (record.seq <= before) {
        this.#reader.entriesOf(record);
        continue;
      }
      this.#add(record);
      if (++read >= CHUNK) break;
    }
    this.#trimFront();
    return this.#last > before;
  }

  /** Reads the chunk before the window, keeping the top where it is on screen. */
  async #readBackward(): Promise<void> {
    const from = Math.max(1, this.#first - CHUNK);
    const reader = this.#newReader();
    const items: Item[] = [];
    for await (const record of this.#store.readRecords(this.#runId, Math.max(1, from - PRIME))) {
      if (record.seq >= this.#first) break;
      const entries = reader.entriesOf(record);
      if (record.seq < from) continue;
      entries.forEach((entry, index) => items.push({ entry, index, gap: items.length > 0 && startsTurn(entry, index) }));
    }
    const first = this.#items[0];
    if (first !== undefined && !first.gap && items.length > 0 && startsTurn(first.entry, first.index)) {
      this.#items[0] = { ...first, gap: true };
    }
    this.#items = [...items, ...this.#items];
    this.#top = { item: this.#top.item + items.length, row: this.#top.row };
    this.#first = from;
    // Too long now: the records far below the screen go, and are read again when needed.
    while (this.#last - this.#first + 1 > WINDOW && this.#items.length > 0) this.#dropLastRecord();
  }

  #dropLastRecord(): void {
    const seq = this.#last;
    while (this.#items.at(-1)?.entry.seq === seq && this.#items.length - 1 > this.#top.item) this.#items.pop();
    this.#last = seq - 1;
    // The reader had read on past the window's new last record.
    this.#reader = undefined;
  }

  /** Drops records far above the screen when the window has grown past its size. */
  #trimFront(): void {
    while (this.#last - this.#first + 1 > WINDOW) {
      const seq = this.#first;
      let dropped = 0;
      while (this.#items[dropped]?.entry.seq === seq && dropped < this.#top.item) dropped++;
      if (dropped < this.#items.filter((item) => item.entry.seq === seq).length) return;
      this.#items.splice(0, dropped);
      this.#top = { item: this.#top.item - dropped, row: this.#top.row };
      this.#first = seq + 1;
    }
  }

  #rowsOf(item: Item): ScreenRow[] {
    const open = this.#open.has(foldKey(item));
    const cached = this.#rowCache.get(item);
    if (cached !== undefined && cached.width === this.#width && cached.open === open) return cached.rows;
    const work = item.entry.kind === "child" ? (this.#childWork.get(item.entry.runId) ?? "") : "";
    const rows = [...(item.gap ? [{ text: "", style: "blank" as const, current: false }] : []), ...entryRows(item.entry, open, this.#width, work)];
    this.#rowCache.set(item, { width: this.#width, open, rows });
    return rows;
  }
}

/** Everything of an entry a search looks in. */
function entryText(entry: TranscriptEntry): string {
  switch (entry.kind) {
    case "tool_call":
      return `${entry.name} ${JSON.stringify(entry.input)}`;
    case "tool_result":
      return `${entry.name} ${entry.text}`;
    case "marker":
      return `${entry.text}\n${entry.detail ?? ""}`;
    case "child":
      return childHead(entry);
    default:
      return entry.text;
  }
}

/** An entry's rows at `width`: a folded one is one row saying what Enter opens; `work` is a child session's, once read. */
function entryRows(entry: TranscriptEntry, open: boolean, width: number, work: string): ScreenRow[] {
  const rows = (text: string, style: ScreenRow["style"], indent = "") => wrapText(text, width, indent).map((row) => ({ text: row, style, current: false }));
  switch (entry.kind) {
    case "user":
      return rows(`› ${entry.text}`, "user", "  ");
    case "text":
      return rows(entry.text, "text");
    case "other":
      return rows(entry.text, "dim");
    case "tool_call":
      return rows(`→ ${entry.server ? "(server) " : ""}${entry.name} ${JSON.stringify(entry.input)}`, "call", "  ");
    case "thinking": {
      if (entry.redacted) return rows("(thinking, redacted)", "dim");
      return folded(`(thinking) ${entry.text}`, { text: entry.text, style: "dim" }, open, width);
    }
    case "tool_result": {
      const style = entry.error ? "error" : "dim";
      return folded(`← ${entry.name}${entry.error ? " (error)" : ""}: ${entry.text}`, { text: entry.text, style }, open, width);
    }
    case "marker":
      if (entry.detail === undefined) return rows(entry.text, "marker");
      return folded(entry.text, { text: entry.detail, style: "text" }, open, width);
    case "child":
      return folded(`${childHead(entry)} · ${entry.title}`, { text: work, style: "text" }, open, width);
  }
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

const BODY_INDENT = "  ";

/** A foldable entry: `▸ head` alone, or `▾ head` and its body below it, indented. */
function folded(head: string, body: { text: string; style: ScreenRow["style"] }, open: boolean, width: number): ScreenRow[] {
  const lines = lineCount(body.text);
  const more = lines > 1 ? ` (+${counted(lines - 1, "line")})` : "";
  const first = { text: `${open ? "▾" : "▸"} ${oneRow(head, width - 2 - more.length)}${more}`, style: body.style === "text" ? ("marker" as const) : body.style, current: false };
  if (!open) return [first];
  const rows = wrapText(body.text, Math.max(1, width - BODY_INDENT.length)).map((text) => ({ text: `${BODY_INDENT}${text}`, style: body.style, current: false }));
  return [first, ...rows];
}
