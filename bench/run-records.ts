// Realistic journal contents for the store benchmark, shaped as a real run writes them:
// an assistant turn with text and tool_use blocks, then one tool_result per tool_use,
// iterations increasing and seqs consecutive. Seeded, so every run writes the same bytes.
import { closeSync, openSync, writeSync } from "node:fs";
import type { JournalRecord } from "../src/index.js";
import { encodeRecord, PROTOCOLS, RECORD_VERSION, type MetaPayload, type RecordEntry, type TerminalReason, type ToolUseBlock } from "../src/journal.js";
import { mulberry32 } from "../test/helpers/simulated-runs.js";

/** How big a run's records are; ranges are [min, max], drawn uniformly. */
export interface RunShape {
  /** Bytes of tool output carried by each tool_result. */
  outputBytes: readonly [number, number];
  /** Bytes of prose in each assistant turn. */
  proseBytes: readonly [number, number];
  toolsPerTurn: readonly [number, number];
}

const WORDS = (
  "the a test fails because config loader returns undefined when path is missing so we should check " +
  "handler before calling it then rerun suite and compare output with expected value in fixture " +
  "look at function module import error stack trace line retry timeout session journal record " +
  "append fsync lock reopen fold state commit branch build lint type mismatch cache écran naïve"
).split(" ");
const FILES = [
  "src/server/router.ts",
  "src/db/pool.ts",
  "internal/agent/loop.go",
  "internal/agent/loop_test.go",
  "cmd/fisk-ai/main.go",
  "package.json",
  "README.md",
  "src/runstate/views/fold.ts",
];
const COMMANDS = ["go test ./internal/...", "npm test", "git status --short", "ls -la src", "grep -rn TODO src"];
const IDENTIFIERS = ["config", "session", "record", "handler", "result", "options", "journal", "state", "error", "next"];
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function metaFor(runId: string): MetaPayload {
  return {
    version: RECORD_VERSION,
    run_id: runId,
    created: "2026-01-15T09:30:00.000Z",
    fingerprint: {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      system_hash: "sha256:5f1d3c0e9a7b2c4d6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d",
      tools_hash: "sha256:0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b",
      thinking_mode: "off",
      max_tokens: 16384,
      max_iterations: 100000,
    },
    prompt: "The integration tests in internal/agent fail since the last merge: find out why and fix them.",
  };
}

/** Numbers entries from `firstSeq` and encodes each line exactly as a journal's append does. */
export function encodeEntries(entries: readonly RecordEntry[], firstSeq: number): string[] {
  return entries.map((entry, index) => encodeRecord({ seq: firstSeq + index, ...entry } as JournalRecord));
}

export function metaLine(runId: string): string {
  return encodeRecord({ seq: 1, protocol: PROTOCOLS.meta, meta: metaFor(runId) });
}

export function terminalLine(seq: number, reason: TerminalReason): string {
  return encodeRecord({ seq, protocol: PROTOCOLS.terminal, terminal: { reason } });
}

/** Writes a journal's lines directly, as the store would have left them (0600, new file). */
export function writeJournalFile(path: string, parts: readonly (string | Uint8Array)[]): void {
  const fd = openSync(path, "wx", 0o600);
  try {
    for (const part of parts) {
      const bytes = typeof part === "string" ? Buffer.from(part) : part;
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    }
  } finally {
    closeSync(fd);
  }
}

/** The shape of the large journals the resume and show benches, and the show's memory test, read. */
const LARGE_RUN: RunShape = { outputBytes: [900, 3400], proseBytes: [200, 900], toolsPerTurn: [1, 3] };

/**
 * Writes a journal of `bytes` bytes or a little more of whole turns, a chunk at a time (no
 * string could hold 1 GB), ending with a terminal record of `reason`; returns its last seq.
 */
export function writeLargeJournal(path: string, runId: string, bytes: number, reason: TerminalReason, seed: number, shape: RunShape = LARGE_RUN): number {
  const chunk = 64 * 1024 * 1024;
  const generator = new RunGenerator(shape, seed);
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, metaLine(runId));
    let seq = 2;
    for (let written = 0; written < bytes; ) {
      const turns = generator.encodedTurns(seq, Math.min(chunk, bytes - written));
      written += writeSync(fd, turns.text);
      seq += turns.records;
    }
    writeSync(fd, terminalLine(seq, reason));
    return seq;
  } finally {
    closeSync(fd);
  }
}

export class RunGenerator {
  readonly #shape: RunShape;
  readonly #random: () => number;
  #iteration = 0;
  #toolUses = 0;

  constructor(shape: RunShape, seed: number) {
    this.#shape = shape;
    this.#random = mulberry32(seed);
  }

  /** The first `count` entries of a run; a cut mid-turn leaves a pending batch, which is still valid. */
  entries(count: number): RecordEntry[] {
    const entries: RecordEntry[] = [];
    while (entries.length < count) entries.push(...this.turn());
    return entries.slice(0, count);
  }

  /**
   * Whole turns, encoded from seq `firstSeq` on, until they hold at least `bytes` bytes.
   * Returns the lines joined and how many records they are.
   */
  encodedTurns(firstSeq: number, bytes: number): { text: string; records: number } {
    const lines: string[] = [];
    let size = 0;
    while (size < bytes) {
      for (const line of encodeEntries(this.turn(), firstSeq + lines.length)) {
        lines.push(line);
        size += Buffer.byteLength(line);
      }
    }
    return { text: lines.join(""), records: lines.length };
  }

  /** One model turn that calls tools, and the result of each call. */
  turn(): RecordEntry[] {
    const toolUses = Array.from({ length: this.#between(this.#shape.toolsPerTurn) }, () => this.#toolUse());
    const inTokens = this.#between([3000, 60000]);
    const assistant: RecordEntry = {
      protocol: PROTOCOLS.assistant,
      assistant: {
        iteration: this.#iteration++,
        message: { role: "assistant", content: [{ type: "text", text: this.#prose(this.#between(this.#shape.proseBytes)) }, ...toolUses] },
        stop_reason: "tool_use",
        in_tokens: inTokens,
        out_tokens: this.#between([80, 900]),
        cache_read_tokens: Math.floor(inTokens * 0.9),
        cache_create_tokens: this.#between([0, 2000]),
      },
    };
    const results = toolUses.map(
      (use): RecordEntry => ({
        protocol: PROTOCOLS.tool_result,
        tool_result: {
          tool_use_id: use.id,
          result: { type: "tool_result", tool_use_id: use.id, content: this.#toolOutput(use), is_error: this.#random() < 0.05 },
        },
      }),
    );
    return [assistant, ...results];
  }

  #toolUse(): ToolUseBlock {
    // The counter keeps ids unique within a run; the random tail makes them look like the API's.
    const id = `toolu_01${(this.#toolUses++).toString(36).padStart(6, "0")}${this.#token(16)}`;
    switch (this.#between([0, 3])) {
      case 0:
        return { type: "tool_use", id, name: "read_file", input: { path: this.#pick(FILES) } };
      case 1:
        return { type: "tool_use", id, name: "run_command", input: { command: this.#pick(COMMANDS), timeout_ms: 120000 } };
      case 2:
        return { type: "tool_use", id, name: "search", input: { pattern: this.#pick(IDENTIFIERS), path: "src" } };
      default:
        return {
          type: "tool_use",
          id,
          name: "edit_file",
          input: { path: this.#pick(FILES), old: this.#codeLine(), new: this.#codeLine() },
        };
    }
  }

  /** Output in the tool's own style: numbered source, test output or grep hits. */
  #toolOutput(use: ToolUseBlock): string {
    const target = this.#between(this.#shape.outputBytes);
    const lines: string[] = [];
    let size = 0;
    while (size < target) {
      const n = lines.length + 1;
      let line: string;
      if (use.name === "read_file") line = `${String(n).padStart(5)}\t${this.#codeLine()}`;
      else if (use.name === "run_command") line = this.#testLine();
      else if (use.name === "search") line = `${this.#pick(FILES)}:${this.#between([1, 900])}:${this.#codeLine()}`;
      else line = `${this.#pick(FILES)}: replaced 1 occurrence at line ${this.#between([1, 900])} ✓`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join("\n");
  }

  #testLine(): string {
    const roll = this.#random();
    if (roll < 0.6) return `ok  \tgithub.com/choria-io/fisk-ai/internal/${this.#pick(IDENTIFIERS)}\t0.${this.#between([10, 999])}s`;
    if (roll < 0.8) return `--- FAIL: Test${this.#pick(IDENTIFIERS)}Roundtrip (0.0${this.#between([0, 9])}s)`;
    return `    loop_test.go:${this.#between([10, 400])}: expected "${this.#pick(IDENTIFIERS)}", got "${this.#pick(IDENTIFIERS)}" …`;
  }

  #codeLine(): string {
    const [a, b, c] = [this.#pick(IDENTIFIERS), this.#pick(IDENTIFIERS), this.#pick(IDENTIFIERS)];
    const indent = " ".repeat(2 * this.#between([0, 3]));
    switch (this.#between([0, 3])) {
      case 0:
        return `${indent}const ${a} = await ${b}.${c}(options);`;
      case 1:
        return `${indent}if (${a} === undefined) throw new Error("no ${b} for ${c}");`;
      case 2:
        return `${indent}return { ${a}, ${b}: ${c}.length };`;
      default:
        return `${indent}// ${this.#prose(40)}`;
    }
  }

  #prose(bytes: number): string {
    let text = "";
    while (text.length < bytes) {
      const words = Array.from({ length: this.#between([6, 16]) }, () => this.#pick(WORDS));
      const sentence = words.join(" ");
      text += `${text === "" ? "" : " "}${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
    }
    return text;
  }

  #token(length: number): string {
    return Array.from({ length }, () => BASE62.charAt(Math.floor(this.#random() * BASE62.length))).join("");
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }

  #between([min, max]: readonly [number, number]): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }
}
