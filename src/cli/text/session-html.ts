// `session export ID --format html`: one self-contained page to share a session without
// uploading it anywhere. Nothing on it is fetched: its style and its one script are inline
// and allowed by hash alone (Content-Security-Policy), so the page makes no request, and
// everything from the journal is escaped text, so a result holding <script> runs nothing.
// Written as it is read, in two passes: the tally and the chart, then the conversation.
import { createHash } from "node:crypto";
import { providerOf } from "../../agent/fingerprint.js";
import { ledgerOf, pricedCall } from "../../ledger/ledger.js";
import type { PriceTable } from "../../ledger/prices.js";
import { tallyStep, type RunTally } from "../../runstate/views/run-tally.js";
import { RunStateError } from "../../runstate/errors.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { durationText } from "../../transcript/duration.js";
import { dollarsText } from "./ledger.js";
import type { PacedOutput } from "./paced-output.js";
import { writeOutput } from "./write-output.js";
import { ledgerLines, tokensText } from "./session-ledger.js";
import { storedDigest } from "../../ledger/tree-ledger.js";
import { statusText } from "./session-list.js";
import { ChildSessions } from "../../transcript/child-sessions.js";
import { childHead } from "./transcript-entry.js";
import { startsTurn, type TranscriptEntry } from "../../transcript/transcript-entries.js";

/** The most bars the token chart draws: a longer run's turns are summed into buckets. */
const MAX_BARS = 240;
const SUMMARY_CHARS = 160;

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1f23; --bg: #fbfbfa; --muted: #6b6f76; --line: #e2e2de; --user: #0b6e4f; --call: #1f5fa8; --error: #b3261e; --mark: #8a6100; --in: #7aa6d6; --out: #e08b3a; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e3; --bg: #17181a; --muted: #9a9ea6; --line: #2c2e33; --user: #4cc39a; --call: #7fb0ea; --error: #f08a82; --mark: #e0b34a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header, nav, main { max-width: 980px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 24px; }
h1 { font-size: 20px; margin: 0 0 12px; word-break: break-all; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 16px; }
dt { color: var(--muted); }
dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
figure { margin: 0 0 16px; }
figcaption { color: var(--muted); font-size: 13px; }
svg { width: 100%; height: 120px; border: 1px solid var(--line); border-radius: 6px; }
nav { position: sticky; top: 0; background: var(--bg); padding-top: 8px; padding-bottom: 8px; border-bottom: 1px solid var(--line); display: flex; gap: 12px; align-items: center; z-index: 1; }
nav input { flex: 1; font: inherit; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; background: transparent; color: inherit; }
#count { color: var(--muted); min-width: 9em; text-align: right; }
main { padding-top: 12px; padding-bottom: 48px; }
.entry { margin: 6px 0; }
.turn { margin-top: 18px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.text pre { font: inherit; }
.user pre { font: inherit; font-weight: 600; color: var(--user); }
.user pre::before { content: "› "; }
.call pre { color: var(--call); }
.took pre { color: var(--muted); font-size: 12px; }
details > summary { cursor: pointer; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font: 13px/1.6 ui-monospace, SFMono-Regular, Menlo, monospace; }
details > pre { border-left: 3px solid var(--line); padding: 4px 0 4px 12px; margin: 4px 0 8px; }
details.child > summary { color: var(--call); }
.work { border-left: 3px solid var(--call); padding: 2px 0 2px 12px; margin: 4px 0 8px; }
.error > summary, .error > pre { color: var(--error); }
.marker, .marker > summary { color: var(--mark); }
svg .in { fill: var(--in); }
svg .out { fill: var(--out); }
.hit { outline: 2px solid var(--mark); outline-offset: 3px; border-radius: 2px; }
`;

// The search: finds text in the entries, opens the folds that hold it, and steps through them with Enter.
const SCRIPT = `
(() => {
  const box = document.getElementById("search");
  const count = document.getElementById("count");
  const entries = Array.from(document.querySelectorAll(".entry"));
  let hits = [];
  let at = -1;
  const show = () => {
    for (const entry of entries) entry.classList.remove("hit");
    if (at < 0) return;
    const hit = hits[at];
    hit.classList.add("hit");
    // The match may be inside a child session's work: every fold around it opens.
    for (let fold = hit.closest("details"); fold !== null; fold = fold.parentElement.closest("details")) fold.open = true;
    hit.scrollIntoView({ block: "center" });
    count.textContent = (at + 1) + " of " + hits.length;
  };
  box.addEventListener("input", () => {
    const term = box.value.toLowerCase();
    // A child session's fold holds its work's entries: it matches on its own line only.
    const textOf = (entry) => (entry.classList.contains("child") ? entry.querySelector("summary") : entry).textContent.toLowerCase();
    hits = term === "" ? [] : entries.filter((entry) => textOf(entry).includes(term));
    at = hits.length > 0 ? 0 : -1;
    count.textContent = term === "" ? "" : hits.length === 0 ? "not found" : "";
    show();
  });
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || hits.length === 0) return;
    at = (at + (event.shiftKey ? hits.length - 1 : 1)) % hits.length;
    show();
  });
})();
`;

const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
/** Nothing may be fetched or run but the page's own style and script. */
const CSP = `default-src 'none'; style-src ${hashOf(STYLE)}; script-src ${hashOf(SCRIPT)}; img-src data:; form-action 'none'; base-uri 'none'`;

/** Journal text as HTML text: safe in an element and in a quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Writes the page to `output` (aside, then renamed into place, 0600) or to stdout. */
export async function exportHtml(store: Store, runId: string, output: string | undefined, stdout: NodeJS.WritableStream, prices: PriceTable): Promise<void> {
  await writeOutput(output, stdout, (out) => writePage(store, runId, out, prices));
}

async function writePage(store: Store, runId: string, out: PacedOutput, prices: PriceTable): Promise<void> {
  const chart = new TokenChart();
  let tally: RunTally | undefined;
  for await (const record of store.readRecords(runId)) {
    tally = tallyStep(runId, tally, record);
    const call = pricedCall(record, tally.meta.fingerprint.model, prices, 0);
    if (call?.kind === "agent") chart.add(call.usage.inTokens, call.usage.outTokens, call.cost);
  }
  if (tally === undefined) throw new RunStateError("ERR_EMPTY", `session ${runId}: line 1: the journal holds no records`, { runId, line: 1 });
  const summary = await store.summarize(runId);
  const digest = await storedDigest(store, summary);
  await out.write(head(runId, tally, summary, chart, ledgerLines(ledgerOf([digest], prices), digest)));
  await writeEntries(store, new ChildSessions(store), runId, tally.lastSeq, "", out);
  await out.write(`</main>\n<script>${SCRIPT}</script>\n</body>\n</html>\n`);
  await out.flush();
}

function head(runId: string, tally: RunTally, summary: RunSummary, chart: TokenChart, ledger: [string, string][]): string {
  const { counters, meta } = tally;
  const fields: [string, string][] = [
    ["status", statusText(summary) + (tally.terminal?.message === undefined ? "" : ` (${tally.terminal.message})`)],
    ["provider", providerOf(meta.fingerprint)],
    ["model", meta.fingerprint.model],
    ["created", meta.created],
    ["updated", summary.updated],
    ["records", String(tally.lastSeq)],
    ["model calls", String(counters.modelCalls)],
    ["tool calls", String(counters.toolCalls)],
    ["tokens", tokensText(counters.inTokens, counters.outTokens, counters.cacheReadTokens, counters.cacheCreateTokens)],
    ...ledger,
    ...(meta.cwd === undefined ? [] : [["directory", meta.cwd] as [string, string]]),
    ["prompt", meta.prompt],
  ];
  // The page is named as a person knows the session: its title, or else what it was asked.
  const title = summary.digest?.title;
  const heading = title === undefined || title === null ? oneLine(meta.prompt) : title;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(heading)} · fisk-ai session ${escapeHtml(runId)}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    "<header>",
    `<h1>${escapeHtml(heading)}</h1>`,
    `<p class="session">fisk-ai session ${escapeHtml(runId)}</p>`,
    `<dl>${fields.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join("")}</dl>`,
    chart.svg(),
    "</header>",
    '<nav><input id="search" type="search" placeholder="Search the conversation (Enter: next, Shift+Enter: previous)" aria-label="Search the conversation" autocomplete="off"><span id="count" aria-live="polite"></span></nav>',
    "<main>",
    "",
  ].join("\n");
}

/** The entries of `runId` through `lastSeq`, each child session's work folded in after the call that started it. */
async function writeEntries(store: Store, children: ChildSessions, runId: string, lastSeq: number, idPrefix: string, out: PacedOutput): Promise<void> {
  const reader = await children.readerOf(runId);
  let written = 0;
  for await (const record of store.readRecords(runId)) {
    if (record.seq > lastSeq) break;
    for (const [index, entry] of reader.entriesOf(record).entries()) {
      await out.write(entryHtml(entry, index, written > 0 && startsTurn(entry, index), idPrefix));
      written++;
      if (entry.kind !== "child") continue;
      await writeEntries(store, children, entry.runId, Number.POSITIVE_INFINITY, `${idPrefix}${entry.runId}-`, out);
      await out.write("</div></details>\n");
    }
  }
}

function entryHtml(entry: TranscriptEntry, index: number, turn: boolean, idPrefix = ""): string {
  const at = `id="${escapeHtml(idPrefix)}r${entry.seq}-${index}" data-seq="${entry.seq}"`;
  const classes = (kind: string) => `entry ${kind}${turn ? " turn" : ""}`;
  const block = (kind: string, text: string) => `<div class="${classes(kind)}" ${at}><pre>${escapeHtml(text)}</pre></div>\n`;
  const fold = (kind: string, summary: string, body: string) =>
    `<details class="${classes(kind)}" ${at}><summary>${escapeHtml(oneLine(summary))}</summary><pre>${escapeHtml(body)}</pre></details>\n`;
  switch (entry.kind) {
    case "user":
      return block("user", entry.text);
    case "text":
      return block("text", entry.text);
    case "other":
      return block("other", entry.text);
    case "thinking":
      return entry.redacted ? block("other", "(thinking, redacted)") : fold("thinking", `thinking · ${entry.text}`, entry.text);
    case "tool_call":
      return block("call", `→ ${entry.server ? "(server) " : ""}${entry.name} ${JSON.stringify(entry.input, null, 2)}`);
    case "tool_result": {
      const lines = entry.text.split("\n").length;
      const took = entry.ms === undefined ? "" : ` · ${durationText(entry.ms)}`;
      const said = `← ${entry.name}${entry.error ? " (error)" : ""}${took} · ${lines} line${lines === 1 ? "" : "s"} · ${entry.text}`;
      return fold(entry.error ? "result error" : "result", said, entry.text);
    }
    case "model_call":
      return block("took", `model call · ${durationText(entry.ms)}`);
    case "marker":
      return entry.detail === undefined ? block("marker", entry.text) : fold("marker", entry.text, entry.detail);
    case "child":
      // Left open: the child's work is written into it, and writeEntries closes it.
      return `<details class="${classes("child")}" ${at} data-session="${escapeHtml(entry.runId)}"><summary>${escapeHtml(oneLine(`${childHead(entry)} · ${entry.title}`))}</summary><div class="work">\n`;
  }
}

function oneLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;
}

/**
 * Tokens per model call as bars, input above and output below, each with its cost: at
 * most MAX_BARS of them, so a run of half a million turns sums neighbours into one bar
 * (and the chart says how many).
 */
interface Bar {
  input: number;
  output: number;
  /** In US dollars; undefined when the model has no price. */
  cost: number | undefined;
  /** The index of its first model call. */
  first: number;
}

class TokenChart {
  #bars: Bar[] = [];
  #perBar = 1;
  #turns = 0;
  #cost: number | undefined = 0;

  /** One model call of the agent: its input and output tokens and what it cost. */
  add(input: number, output: number, cost: number | undefined): void {
    const turn = this.#turns++;
    this.#cost = sum(this.#cost, cost);
    const last = this.#bars.at(-1);
    if (last !== undefined && turn - last.first < this.#perBar) {
      last.input += input;
      last.output += output;
      last.cost = sum(last.cost, cost);
    } else {
      this.#bars.push({ input, output, cost, first: turn });
    }
    if (this.#bars.length > MAX_BARS) {
      // Twice as many turns a bar: neighbours are summed pairwise.
      this.#perBar *= 2;
      const merged: Bar[] = [];
      for (let index = 0; index < this.#bars.length; index += 2) {
        const [a, b] = [this.#bars[index] as Bar, this.#bars[index + 1]];
        merged.push(b === undefined ? a : { input: a.input + b.input, output: a.output + b.output, cost: sum(a.cost, b.cost), first: a.first });
      }
      this.#bars = merged;
    }
  }

  svg(): string {
    if (this.#turns === 0) return "";
    const width = 960;
    const half = 56;
    const step = width / this.#bars.length;
    const maxIn = Math.max(1, ...this.#bars.map((bar) => bar.input));
    const maxOut = Math.max(1, ...this.#bars.map((bar) => bar.output));
    const rects = this.#bars.map((bar, index) => {
      const x = (index * step).toFixed(2);
      const w = Math.max(1, step - 1).toFixed(2);
      const up = (half * bar.input) / maxIn;
      const down = (half * bar.output) / maxOut;
      const turns = this.#perBar === 1 ? `turn ${bar.first + 1}` : `turns ${bar.first + 1} to ${Math.min(this.#turns, bar.first + this.#perBar)}`;
      return `<g><title>${turns}: ${bar.input} in, ${bar.output} out, ${costOfBar(bar.cost)}</title><rect x="${x}" y="${(half - up).toFixed(2)}" width="${w}" height="${up.toFixed(2)}" class="in"/><rect x="${x}" y="${half + 4}" width="${w}" height="${down.toFixed(2)}" class="out"/></g>`;
    });
    const each = this.#perBar === 1 ? "each bar a model call" : `each bar ${this.#perBar} model calls summed`;
    return [
      "<figure>",
      `<svg viewBox="0 0 ${width} ${2 * half + 4}" preserveAspectRatio="none" role="img" aria-label="tokens per model call">${rects.join("")}</svg>`,
      `<figcaption>Tokens per model call (${this.#turns} calls, ${each}, ${costOfBar(this.#cost)} in all): input above (largest ${maxIn}), output below (largest ${maxOut}). Point at a bar for its tokens and cost.</figcaption>`,
      "</figure>",
    ].join("\n");
  }
}

/** A sum of costs in which one without a price leaves the sum without one: never a figure that leaves calls out. */
function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}

function costOfBar(cost: number | undefined): string {
  return cost === undefined ? "no price" : dollarsText(cost);
}
