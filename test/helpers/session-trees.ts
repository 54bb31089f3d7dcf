// Sessions with child sessions (docs/sub-agents.md), written through a store's own writer
// as the runtime leaves them: a parent whose two `researcher` calls each started a child,
// one of which started a child of its own; and a parent stopped while its child still works.
import type { Store } from "../../src/index.js";
import { CHILD_RECORD_VERSION, PROTOCOLS, type RecordEntry } from "../../src/journal.js";
import { metaPayload, terminalEntry, toolResultEntry } from "./record-builders.js";

/** A model turn: text, then a call of `tool` per id given, with these tokens. */
export function turnEntry(
  iteration: number,
  text: string,
  calls: { id: string; tool: string; prompt: string }[],
  tokens: { in: number; out: number },
): RecordEntry {
  return {
    protocol: PROTOCOLS.assistant,
    assistant: {
      iteration,
      message: {
        role: "assistant",
        content: [
          { type: "text", text },
          ...calls.map((call) => ({ type: "tool_use" as const, id: call.id, name: call.tool, input: { prompt: call.prompt } })),
        ],
      },
      stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
      in_tokens: tokens.in,
      out_tokens: tokens.out,
    },
  };
}

/** One session of a tree: its parent link (none for the root), prompt and records after the meta. */
export interface PlantedSession {
  runId: string;
  parent?: { runId: string; callId: string; depth: number };
  prompt: string;
  entries: RecordEntry[];
  created: string;
}

export async function plantTree(store: Store, sessions: readonly PlantedSession[]): Promise<void> {
  for (const session of sessions) {
    const link =
      session.parent === undefined
        ? {}
        : { version: CHILD_RECORD_VERSION, parent: { run_id: session.parent.runId, call_id: session.parent.callId, depth: session.parent.depth } };
    const journal = await store.create(session.runId, metaPayload(session.runId, { prompt: session.prompt, created: session.created, ...link }));
    let seq = 2;
    for (const entry of session.entries) await journal.append(seq++, entry);
    await journal.close();
  }
}

/**
 * `survey` asks two researchers (`survey-r1`, `survey-r2`); `survey-r1` asks a summarizer
 * (`survey-r1-s1`). Every session completed. Tokens differ so that each sum is its own.
 */
export function surveyTree(): PlantedSession[] {
  return [
    {
      runId: "survey",
      prompt: "Survey the notes",
      created: "2026-12-02T10:00:00Z",
      entries: [
        turnEntry(
          0,
          "Two researchers.",
          [
            { id: "toolu_r1", tool: "researcher", prompt: "Read notes A" },
            { id: "toolu_r2", tool: "researcher", prompt: "Read notes B" },
          ],
          { in: 1000, out: 100 },
        ),
        toolResultEntry("toolu_r2", "notes B say blue"),
        toolResultEntry("toolu_r1", "notes A say red"),
        turnEntry(1, "A says red, B says blue.", [], { in: 1300, out: 40 }),
        terminalEntry("completed"),
      ],
    },
    {
      runId: "survey-r1",
      parent: { runId: "survey", callId: "toolu_r1", depth: 1 },
      prompt: "Read notes A",
      created: "2026-12-02T10:00:01Z",
      entries: [
        turnEntry(0, "A summarizer for A.", [{ id: "toolu_s1", tool: "summarizer", prompt: "Summarize notes A" }], { in: 200, out: 30 }),
        toolResultEntry("toolu_s1", "red, in short"),
        turnEntry(1, "notes A say red", [], { in: 260, out: 8 }),
        terminalEntry("completed"),
      ],
    },
    {
      runId: "survey-r2",
      parent: { runId: "survey", callId: "toolu_r2", depth: 1 },
      prompt: "Read notes B",
      created: "2026-12-02T10:00:02Z",
      entries: [turnEntry(0, "notes B say blue", [], { in: 150, out: 9 }), terminalEntry("completed")],
    },
    {
      runId: "survey-r1-s1",
      parent: { runId: "survey-r1", callId: "toolu_s1", depth: 2 },
      prompt: "Summarize notes A",
      created: "2026-12-02T10:00:03Z",
      entries: [turnEntry(0, "red, in short", [], { in: 90, out: 5 }), terminalEntry("completed")],
    },
  ];
}

/** `waiting` was stopped (killed) while its researcher `waiting-r1` works: the parent can still resume into it. */
export function waitingTree(): PlantedSession[] {
  return [
    {
      runId: "waiting",
      prompt: "Look into it",
      created: "2026-12-02T11:00:00Z",
      entries: [turnEntry(0, "A researcher.", [{ id: "toolu_w1", tool: "researcher", prompt: "Dig" }], { in: 500, out: 50 })],
    },
    {
      runId: "waiting-r1",
      parent: { runId: "waiting", callId: "toolu_w1", depth: 1 },
      prompt: "Dig",
      created: "2026-12-02T11:00:01Z",
      entries: [turnEntry(0, "digging", [{ id: "toolu_d1", tool: "note", prompt: "x" }], { in: 70, out: 7 })],
    },
  ];
}
