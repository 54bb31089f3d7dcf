// Sessions to look at, written straight into a state directory as a store leaves them:
// one of every kind of thing a transcript shows, and one whose tool result is hostile.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JournalRecord } from "../../src/index.js";
import { encodeRecord, PROTOCOLS, type RecordEntry } from "../../src/journal.js";
import { compactionEntry, journalOf, metaRecord, terminalEntry, userEntry } from "./record-builders.js";

/** What a tool result of the hostile session holds: markup that would run, or end a textarea, if it were not escaped. */
export const HOSTILE_RESULT = `</textarea></pre><script>window.__pwned = "script";</script><img src="http://127.0.0.1:9/x.png" onerror="window.__pwned = 'img'">`;

function assistant(iteration: number, content: unknown[], stopReason: "tool_use" | "end_turn", tokens: [number, number]): RecordEntry {
  return {
    protocol: PROTOCOLS.assistant,
    assistant: { iteration, message: { role: "assistant", content }, stop_reason: stopReason, in_tokens: tokens[0], out_tokens: tokens[1] },
  } as RecordEntry;
}

function result(id: string, content: string, isError = false): RecordEntry {
  return {
    protocol: PROTOCOLS.tool_result,
    tool_result: { tool_use_id: id, result: { type: "tool_result", tool_use_id: id, content, is_error: isError } },
  } as RecordEntry;
}

const TEST_OUTPUT = [
  "ok  \tgithub.com/example/shop/internal/cart\t0.412s",
  "--- FAIL: TestCheckoutTotals (0.02s)",
  '    checkout_test.go:88: total = 1999, want 2099 (shipping "standard")',
  "FAIL\tgithub.com/example/shop/internal/checkout\t0.377s",
  "ok  \tgithub.com/example/shop/internal/payment\t0.208s",
].join("\n");

/** A session of a few turns: thinking, tool calls, a failing and a passing test run, a compaction, a follow-up and the answer. */
export function tourRecords(runId: string): JournalRecord[] {
  const records = journalOf(
    runId,
    assistant(
      0,
      [
        { type: "thinking", thinking: "The checkout tests fail since the shipping change.\nRun them first, then read the totals code.", signature: "sig" },
        { type: "text", text: "I'll run the checkout tests to see what fails." },
        { type: "tool_use", id: "toolu_01", name: "run_command", input: { command: "go test ./internal/..." } },
      ],
      "tool_use",
      [4210, 180],
    ),
    result("toolu_01", TEST_OUTPUT, true),
    assistant(
      1,
      [
        { type: "text", text: "TestCheckoutTotals expects shipping to be added. Let me read the totals function." },
        { type: "tool_use", id: "toolu_02", name: "read_file", input: { path: "internal/checkout/totals.go" } },
      ],
      "tool_use",
      [6020, 95],
    ),
    result(
      "toolu_02",
      [
        "func Total(cart Cart, shipping Shipping) int {",
        "\tsum := cart.Subtotal()",
        '\tif shipping.Kind == "express" {',
        "\t\tsum += shipping.Price",
        "\t}",
        "\treturn sum",
        "}",
      ].join("\n"),
    ),
    assistant(
      2,
      [
        { type: "text", text: "Standard shipping is never added. Fixing the condition." },
        {
          type: "tool_use",
          id: "toolu_03",
          name: "edit_file",
          input: { path: "internal/checkout/totals.go", old: 'if shipping.Kind == "express" {', new: 'if shipping.Kind != "free" {' },
        },
      ],
      "tool_use",
      [7105, 140],
    ),
    result("toolu_03", "internal/checkout/totals.go: replaced 1 occurrence at line 3"),
    compactionEntry(1, 5, {
      summary: "Ran the checkout tests: TestCheckoutTotals failed because Total added shipping only for express.",
      tokens_before: 17335,
      tokens_after: 2950,
    }),
    assistant(3, [{ type: "tool_use", id: "toolu_04", name: "run_command", input: { command: "go test ./internal/checkout/" } }], "tool_use", [3010, 60]),
    result("toolu_04", "ok  \tgithub.com/example/shop/internal/checkout\t0.351s"),
    assistant(
      4,
      [{ type: "text", text: "Fixed: Total now adds every shipping price but free shipping, and the checkout tests pass." }],
      "end_turn",
      [3390, 70],
    ),
    userEntry("Does the payment package need the same change?"),
    assistant(
      5,
      [
        { type: "text", text: "Let me check how payment computes its amount." },
        { type: "tool_use", id: "toolu_05", name: "search", input: { pattern: "shipping", path: "internal/payment" } },
      ],
      "tool_use",
      [3800, 85],
    ),
    result("toolu_05", "internal/payment/charge.go:41:\tamount := checkout.Total(cart, order.Shipping)"),
    assistant(6, [{ type: "text", text: "No: payment charges checkout.Total, so the fix covers it too." }], "end_turn", [4075, 40]),
    terminalEntry("completed"),
  );
  records[0] = metaRecord(runId, { prompt: "The checkout tests fail since the shipping change: find out why and fix it.", cwd: "/home/dev/shop" });
  return records;
}

/** A session whose tool results hold markup and control characters. */
export function hostileRecords(runId: string): JournalRecord[] {
  return journalOf(
    runId,
    assistant(
      0,
      [
        { type: "text", text: "Reading the page." },
        { type: "tool_use", id: "toolu_h1", name: "fetch_page", input: { url: "<script>alert(1)</script>" } },
      ],
      "tool_use",
      [100, 10],
    ),
    result("toolu_h1", HOSTILE_RESULT),
    assistant(1, [{ type: "text", text: "Done: the page says \u001b[2J\u001b]0;pwned\u0007 nothing." }], "end_turn", [120, 12]),
    terminalEntry("completed"),
  );
}

/** Writes a journal into `dir` as the file store keeps it. */
export function plantSession(dir: string, records: readonly JournalRecord[]): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const runId = (records[0] as Extract<JournalRecord, { meta: unknown }>).meta.run_id;
  writeFileSync(join(dir, `${runId}.json`), records.map(encodeRecord).join(""), { mode: 0o600 });
}
