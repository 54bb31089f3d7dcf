// What the full-screen viewer shows, without the terminal: a window of a run's records
// read from the store as the reader moves (never the whole journal), laid out in rows of
// the screen's width, with a position, folds, and a search that reads on past the window.
// Every operation runs after the one before it, so keys pressed during a read wait their turn.
import type { JournalRecord } from "../../runstate/records/records.js";
import type { Store } from "../../runstate/store/store.js";
import { ChildSessions } from "../../transcript/child-sessions.js";
import { childHead, plainEntry } from "../text/transcript-entry.js";
import { isFoldable, startsTurn, TranscriptReader, type ChildLinks, type TranscriptEntry } from "../../transcript/transcript-entries.js";
import { oneRow, visibleText, wrapText } from "./screen-text.js";
import { counted } from "../../transcript/counted.js";
import { durationText } from "../../transcript/duration.js";

/** The most records read at once when the reader moves past the window (fewer once the screen is well filled). */
const CHUNK = 50;
/** The most records the window keeps: far more than a screen, far less than a long journal. */
const WINDOW = 2000;
/** Records read before a window's first, so its results are named after their calls. */
const PRIME = 32;

/** A folded body keeps this much of its first line: what its one row can show, on any screen. */
const HEAD_CHARS = 1024;
/** Rows the window holds below the screen before it stops reading on. */
const AHEAD_SCREENS = 2;

/** How a row is drawn: the kind of what it belongs to, whether it is the fold Enter toggles, and where the search's term is in it. */
export interface ScreenRow {
  text: string;
  style: "user" | "text" | "dim" | "call" | "error" | "marker" | "blank";
  current: boolean;
  /** Where the search's term is in `text`, [from, to) in UTF-16 units; absent when it is not. */
  marks?: [number, number][] | undefined;
}

interface Item {
  /** The entry, its foldable body cut to its first line's head when long (`cut`): the rest is read again when the fold opens. */
  entry: TranscriptEntry;
  /** Which entry of its record: folds are kept by seq and this. */
  index: number;
  /** A blank row above: a new turn starts here. */
  gap: boolean;
  /** The lines of the foldable body, counted before it was cut. */
  lines: number;
  cut: boolean;
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
  /** The whole bodies of the open folds whose items were cut, read again from the store. */
  readonly #bodies = new Map<string, string>();
  #term: string | undefined;
  /** The entry the last search found, and every match of its term once counted (a pass over the whole journal after the jump). */
  #found: { seq: number; index: number } | undefined;
  #counted: { term: string; seqs: number[]; indexes: number[] } | undefined;
  #counting = 0;
  #notice = "";
  /** Called when something changes on screen outside an operation: a search's count arriving. */
  onChange: () => void = () => undefined;
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
    await this.#loadAt(1);
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
        const marks = this.#marksIn(shown.text);
        rows.push(index === current && row === (item.gap ? 1 : 0) ? { ...shown, current: true, marks } : marks === undefined ? shown : { ...shown, marks });
      }
    }
    while (rows.length < this.#height) rows.push({ text: this.#last < this.#known ? "…" : "", style: "blank", current: false });
    return rows;
  }

  /** How many characters of the session's text the window holds, open folds included: it grows with the screen and what is opened, not with the results' sizes. */
  heldChars(): number {
    let chars = 0;
    for (const { entry } of this.#items) chars += entryText(entry).length;
    for (const body of this.#bodies.values()) chars += body.length;
    return chars;
  }

  /** Where the search's term is in a row's text, case-insensitively, as the row shows it. */
  #marksIn(text: string): [number, number][] | undefined {
    if (this.#term === undefined || this.#term === "") return undefined;
    const marks: [number, number][] = [];
    const pattern = new RegExp(visibleText(this.#term).replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "giu");
    for (const match of text.matchAll(pattern)) marks.push([match.index, match.index + match[0].length]);
    return marks.length === 0 ? undefined : marks;
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
    return [term, this.#notice || this.#matchCount()].filter((part) => part !== "").join(" ");
  }

  /** "n of m" for the match on screen, once the matches are counted. */
  #matchCount(): string {
    const counted = this.#counted;
    const found = this.#found;
    if (counted === undefined || counted.term !== this.#term || found === undefined) return "";
    // The matches are in journal order: the found one's place is how many come before it.
    let low = 0;
    let high = counted.seqs.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const seq = counted.seqs[middle] as number;
      if (seq < found.seq || (seq === found.seq && (counted.indexes[middle] as number) < found.index)) low = middle + 1;
      else high = middle;
    }
    return `${low + 1} of ${counted.seqs.length}`;
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
    this.#known = Math.max(this.#known, (await this.#store.summarize(this.#runId, { digest: false })).lastSeq);
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
    if (this.#open.has(foldKey(item))) this.#closeFold(item);
    else await this.#openFold(item);
  }

  /** Opens `item`'s fold, reading its whole body again when the window kept only its head. */
  async #openFold(item: Item): Promise<void> {
    const key = foldKey(item);
    if (item.cut && !this.#bodies.has(key)) this.#bodies.set(key, await this.#wholeBody(item));
    // A child session's work is read the first time it is opened.
    if (item.entry.kind === "child" && !this.#childWork.has(item.entry.runId)) this.#childWork.set(item.entry.runId, await this.#workOf(item.entry.runId));
    this.#open.add(key);
  }

  #closeFold(item: Item): void {
    this.#open.delete(foldKey(item));
    this.#bodies.delete(foldKey(item));
  }

  /** The body of `item` as its record holds it, read again from the store. */
  async #wholeBody(item: Item): Promise<string> {
    for await (const record of this.#store.readRecords(this.#runId, item.entry.seq)) {
      const entry = this.#newReader().entriesOf(record)[item.index];
      return entry === undefined ? "" : foldBody(entry);
    }
    return "";
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

  /**
   * Searches forward from the entry at the top of the screen (`backward`: back from it) for
   * `term`, case-insensitively, in what the store holds (a folded body whole, not its head,
   * and a child session's work, read from its journal), and shows the match with its fold
   * open. Then counts every match in the journal, after the jump: the status says "n of m"
   * once that pass is done.
   */
  async search(term: string, backward = false): Promise<void> {
    this.#term = term;
    this.#notice = "";
    this.#found = undefined;
    if (term === "") return;
    const needle = term.toLowerCase();
    const matches = async (item: Item) => entryText(item.entry).toLowerCase().includes(needle) || (await this.#childMatches(item.entry, needle));
    const top = this.#items[this.#top.item];
    const from = top === undefined ? { seq: this.#first, index: -1 } : { seq: top.entry.seq, index: top.index };
    let found: { seq: number; index: number } | undefined;
    if (backward) {
      await this.#scan(1, from.seq, async (item) => {
        if ((item.entry.seq < from.seq || item.index < from.index) && (await matches(item))) found = { seq: item.entry.seq, index: item.index };
        return false;
      });
    } else {
      await this.#scan(from.seq, Number.POSITIVE_INFINITY, async (item) => {
        if ((item.entry.seq > from.seq || item.index > from.index) && (await matches(item))) found = { seq: item.entry.seq, index: item.index };
        return found !== undefined;
      });
    }
    if (found === undefined) {
      this.#notice = "not found";
      return;
    }
    await this.#jumpTo(found);
    if (this.#counted?.term !== term) this.#count(term, matches);
  }

  /** The last search again, forward (n) or backward (N). */
  repeatSearch(backward: boolean): Promise<void> {
    if (this.#term === undefined) {
      this.#notice = "no search yet: / searches";
      return Promise.resolve();
    }
    return this.search(this.#term, backward);
  }

  /** Whether `needle` is in the work of the child session `entry` names: the work an open fold shows, or read for the search and let go. */
  async #childMatches(entry: TranscriptEntry, needle: string): Promise<boolean> {
    if (entry.kind !== "child") return false;
    const work = this.#childWork.get(entry.runId) ?? (await this.#workOf(entry.runId));
    return work.toLowerCase().includes(needle);
  }

  /** Counts the matches of `term` in the whole journal, outside the queue of operations so that keys are not kept waiting; a newer search's count replaces it. */
  #count(term: string, matches: (item: Item) => Promise<boolean>): void {
    const pass = ++this.#counting;
    const counted = { term, seqs: [] as number[], indexes: [] as number[] };
    void this.#scan(1, Number.POSITIVE_INFINITY, async (item) => {
      if (await matches(item)) {
        counted.seqs.push(item.entry.seq);
        counted.indexes.push(item.index);
      }
      return pass !== this.#counting;
    }).then(
      () => {
        if (pass !== this.#counting) return;
        this.#counted = counted;
        this.onChange();
      },
      // A journal that fails to read is for the operations and the check to report.
      () => undefined,
    );
  }

  /** The match at window index `index` on screen, its fold opened: at the top, or its first marked row near it when that is further down than a screen. */
  async #showMatch(index: number): Promise<void> {
    const item = this.#items[index] as Item;
    // A child session's fold opens too: the match may be in its work, read as Enter reads it.
    if (isFoldable(item.entry)) await this.#openFold(item);
    const first = item.gap ? 1 : 0;
    const marked = this.#rowsOf(item).findIndex((row, at) => at > first && this.#marksIn(row.text) !== undefined);
    this.#top = { item: index, row: marked >= this.#height - 1 ? marked - 2 : first };
    this.#found = { seq: item.entry.seq, index: item.index };
    this.#notice = "";
  }

  async #jumpTo(found: { seq: number; index: number }): Promise<void> {
    const at = this.#items.findIndex((item) => item.entry.seq === found.seq && item.index === found.index);
    if (at >= 0) return this.#showMatch(at);
    await this.#loadAt(found.seq);
    const index = this.#items.findIndex((item) => item.entry.seq === found.seq && item.index === found.index);
    await this.#showMatch(Math.max(0, index));
  }

  /** Reads records from..through (stopping at the run's end) outside the window, through a reader of their own, until `visit` says stop. */
  async #scan(from: number, through: number, visit: (item: Item) => Promise<boolean>): Promise<void> {
    if (from > through) return;
    const reader = this.#newReader();
    for await (const record of this.#store.readRecords(this.#runId, Math.max(1, from - PRIME))) {
      if (record.seq > through) return;
      this.#known = Math.max(this.#known, record.seq);
      const entries = reader.entriesOf(record);
      if (record.seq < from) continue;
      for (const [index, entry] of entries.entries()) if (await visit({ entry, index, gap: false, lines: 0, cut: false })) return;
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

  /** The rows from the top of the screen down, counted until they pass `limit`. */
  #rowsBelowTop(limit = this.#height): number {
    let rows = -this.#top.row;
    for (let index = this.#top.item; index < this.#items.length && rows <= limit; index++) rows += this.#rowsOf(this.#items[index] as Item).length;
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
  async #loadAt(seq: number, enough: () => boolean = () => this.#rowsBelowTop() > this.#height): Promise<void> {
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
    entries.forEach((entry, index) => this.#items.push(kept(entry, index, this.#items.length > 0 && startsTurn(entry, index))));
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
      if (++read >= CHUNK || this.#rowsBelowTop(AHEAD_SCREENS * this.#height) > AHEAD_SCREENS * this.#height) break;
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
      entries.forEach((entry, index) => items.push(kept(entry, index, items.length > 0 && startsTurn(entry, index))));
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
    const whole = open ? this.#bodies.get(foldKey(item)) : undefined;
    const work = item.entry.kind === "child" ? (this.#childWork.get(item.entry.runId) ?? "") : "";
    const rows = [
      ...(item.gap ? [{ text: "", style: "blank" as const, current: false }] : []),
      ...entryRows(item.entry, { open, lines: item.lines, whole }, this.#width, work),
    ];
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
    case "model_call":
      return "";
    case "child":
      return childHead(entry);
    default:
      return entry.text;
  }
}

/**
 * The item of an entry as the window keeps it: a foldable body longer than its first line's
 * head is cut to that head (what its folded row shows), and read again when opened.
 */
function kept(entry: TranscriptEntry, index: number, gap: boolean): Item {
  if (!isFoldable(entry)) return { entry, index, gap, lines: 1, cut: false };
  const body = foldBody(entry);
  const lines = lineCount(body);
  const newline = body.indexOf("\n");
  const head = body.slice(0, Math.min(newline === -1 ? body.length : newline, HEAD_CHARS));
  if (head.length === body.length) return { entry, index, gap, lines, cut: false };
  return { entry: withBody(entry, head), index, gap, lines, cut: true };
}

/** What a foldable entry shows when opened. */
function foldBody(entry: TranscriptEntry): string {
  return entry.kind === "marker" ? (entry.detail ?? "") : entry.kind === "thinking" || entry.kind === "tool_result" ? entry.text : "";
}

function withBody(entry: TranscriptEntry, body: string): TranscriptEntry {
  if (entry.kind === "marker") return { ...entry, detail: body };
  if (entry.kind === "thinking" || entry.kind === "tool_result") return { ...entry, text: body };
  return entry;
}

/** An entry's rows at `width`: a folded one is one row saying what Enter opens; `whole` is its body when the item holds only the head; `work` is a child session's, once read. */
function entryRows(entry: TranscriptEntry, fold: { open: boolean; lines: number; whole: string | undefined }, width: number, work: string): ScreenRow[] {
  const { open } = fold;
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
      return folded(`(thinking) ${entry.text}`, { text: fold.whole ?? entry.text, lines: fold.lines, style: "dim" }, open, width);
    }
    case "tool_result": {
      const style = entry.error ? "error" : "dim";
      return folded(
        `← ${entry.name}${entry.error ? " (error)" : ""}${entry.ms === undefined ? "" : ` (${durationText(entry.ms)})`}: ${entry.text}`,
        { text: fold.whole ?? entry.text, lines: fold.lines, style },
        open,
        width,
      );
    }
    case "model_call":
      return rows(`(model call, ${durationText(entry.ms)})`, "dim");
    case "marker":
      if (entry.detail === undefined) return rows(entry.text, "marker");
      return folded(entry.text, { text: fold.whole ?? entry.detail, lines: fold.lines, style: "text" }, open, width);
    case "child":
      return folded(`${childHead(entry)} · ${entry.title}`, { text: work, lines: lineCount(work), style: "text" }, open, width);
  }
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

const BODY_INDENT = "  ";

/** A foldable entry: `▸ head` alone, or `▾ head` and its body below it, indented. */
function folded(head: string, body: { text: string; lines: number; style: ScreenRow["style"] }, open: boolean, width: number): ScreenRow[] {
  const { lines } = body;
  const more = lines > 1 ? ` (+${counted(lines - 1, "line")})` : "";
  const first = {
    text: `${open ? "▾" : "▸"} ${oneRow(head, width - 2 - more.length)}${more}`,
    style: body.style === "text" ? ("marker" as const) : body.style,
    current: false,
  };
  if (!open) return [first];
  const rows = wrapText(body.text, Math.max(1, width - BODY_INDENT.length)).map((text) => ({
    text: `${BODY_INDENT}${text}`,
    style: body.style,
    current: false,
  }));
  return [first, ...rows];
}
