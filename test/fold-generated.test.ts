// covers: src/runstate/errors.ts, src/runstate/records/records.ts, src/runstate/views/fold.ts
// tier: quick
// process: shared
// Generated tests of fold (SPEC sections 3 and 7). Random runs are journaled the way
// the agent loop writes them and every prefix is folded: any prefix is a journal a
// crash could leave behind, so every one must fold to a state a resume can use.
// Reproduce a failure with the seed it prints: FOLD_GEN_SEED=<base> (and FOLD_GEN_RUNS).
import assert from "node:assert/strict";
import test from "node:test";
import { fold, RunStateError, type JournalRecord, type Message, type RunState, type RunStateErrorCode } from "../src/index.js";
import { checkRecord, PROTOCOLS, type PendingBatch, type RecordKind, type ToolResultBlock, type ToolUseBlock } from "../src/journal.js";
import { deriveSeed, Rng, simulateRun } from "./helpers/simulated-runs.js";

const BASE_SEED = Number(process.env.FOLD_GEN_SEED ?? 0x5eedf15c) >>> 0;
const RUNS = Number(process.env.FOLD_GEN_RUNS ?? 300);
const CORRUPTION_CASES = Number(process.env.FOLD_GEN_CORRUPTIONS ?? 400);

type RecordOf<K extends RecordKind> = Extract<JournalRecord, { protocol: (typeof PROTOCOLS)[K] }>;

function isKind<K extends RecordKind>(record: JournalRecord, kind: K): record is RecordOf<K> {
  return record.protocol === PROTOCOLS[kind];
}

function toolUsesOf(message: Message): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

function toolResultsOf(message: Message): ToolResultBlock[] {
  return message.content.filter((block): block is ToolResultBlock => block.type === "tool_result");
}

const sortedIds = (blocks: readonly { id?: string; tool_use_id?: string }[]) => blocks.map((block) => block.id ?? block.tool_use_id).sort();

/** Runs a check and, if it fails, prefixes the failure with what reproduces it. */
function withContext<T>(context: () => string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new Error(`${context()}\n${detail}`, { cause: error });
  }
}

function journalText(records: readonly unknown[]): string {
  return records.map((record) => JSON.stringify(record)).join("\n");
}

/** The shape rules the Anthropic Messages API enforces on a request's `messages`. */
function assertApiAcceptable(messages: readonly Message[]): void {
  assert.ok(messages.length > 0, "messages is empty");
  messages.forEach((message, i) => {
    assert.equal(message.role, i % 2 === 0 ? "user" : "assistant", `message ${i}: roles must alternate, starting with user`);
    assert.ok(message.content.length > 0, `message ${i} has no content`);
    if (message.role !== "user") return;
    // A user message answers exactly the tool uses of the turn before it, each once
    // (none when that turn asked for no tools, or when there is no turn before it).
    const previous = messages[i - 1];
    const asked = previous === undefined ? [] : toolUsesOf(previous);
    const answered = toolResultsOf(message);
    assert.deepEqual(sortedIds(answered), sortedIds(asked), `message ${i} answers other tool uses than message ${i - 1} asked for`);
    // The API wants tool results first, any other content after them.
    const firstOther = message.content.findIndex((block) => block.type !== "tool_result");
    if (firstOther >= 0) {
      assert.ok(
        message.content.slice(firstOther).every((block) => block.type !== "tool_result"),
        `message ${i} has a tool_result after other content`,
      );
    }
  });
  const last = messages[messages.length - 1] as Message;
  assert.ok(last.role === "user" || toolUsesOf(last).length === 0, "messages ends on an assistant turn with unanswered tool_use");
}

/** What fold must produce, computed straight from the records without fold's logic. */
function expectedStateOf(prefix: readonly JournalRecord[]) {
  const meta = (prefix[0] as RecordOf<"meta">).meta;
  const assistants = prefix.filter((record) => isKind(record, "assistant"));
  const results = prefix.filter((record) => isKind(record, "tool_result"));
  const sum = (values: (number | undefined)[]) => values.reduce<number>((total, value) => total + (value ?? 0), 0);

  const lastTurn = assistants[assistants.length - 1];
  const resultsAfterLastTurn = lastTurn === undefined ? [] : results.filter((record) => record.seq > lastTurn.seq);
  const lastTurnUses = lastTurn === undefined ? [] : toolUsesOf(lastTurn.assistant.message);
  const pending: PendingBatch | undefined =
    lastTurn !== undefined && resultsAfterLastTurn.length < lastTurnUses.length
      ? {
          seq: lastTurn.seq,
          turn: lastTurn.assistant,
          toolUses: lastTurnUses,
          results: resultsAfterLastTurn.map((record) => record.tool_result.result),
          answered: new Set(resultsAfterLastTurn.map((record) => record.tool_result.tool_use_id)),
          approvals: new Map(),
          decisions: new Map(),
        }
      : undefined;
  const last = prefix[prefix.length - 1] as JournalRecord;

  return {
    runId: meta.run_id,
    meta,
    counters: {
      modelCalls: assistants.length,
      toolCalls: results.length,
      remoteToolCalls: results.filter((record) => record.tool_result.remote === true).length,
      inTokens: sum(assistants.map((record) => record.assistant.in_tokens)),
      outTokens: sum(assistants.map((record) => record.assistant.out_tokens)),
      cacheReadTokens: sum(assistants.map((record) => record.assistant.cache_read_tokens)),
      cacheCreateTokens: sum(assistants.map((record) => record.assistant.cache_create_tokens)),
      compactionCalls: 0,
      compactionInTokens: 0,
      compactionOutTokens: 0,
    },
    nextIteration: assistants.length === 0 ? 0 : 1 + Math.max(...assistants.map((record) => record.assistant.iteration)),
    lastSeq: last.seq,
    terminal: isKind(last, "terminal") ? last.terminal : undefined,
    pending,
    // What the committed conversation holds: everything journaled, in journal order,
    // except the pending turn and the results gathered for it so far.
    committedTurns: assistants.filter((record) => record.seq !== pending?.seq).map((record) => record.assistant.message),
    committedResults: results.filter((record) => pending === undefined || record.seq < pending.seq).map((record) => record.tool_result.result),
    typedUserBlocks: [{ type: "text", text: meta.prompt }, ...prefix.flatMap((record) => (isKind(record, "user") ? record.user.message.content : []))],
    toolUseIds: assistants.flatMap((record) => toolUsesOf(record.assistant.message).map((use) => use.id)),
  };
}

function checkFoldedPrefix(prefix: readonly JournalRecord[], state: RunState): void {
  const expected = expectedStateOf(prefix);
  assertApiAcceptable(state.messages);

  assert.equal(state.runId, expected.runId, "runId");
  assert.deepEqual(state.meta, expected.meta, "meta");
  assert.deepEqual(state.counters, expected.counters, "counters");
  assert.equal(state.nextIteration, expected.nextIteration, "nextIteration");
  assert.equal(state.lastSeq, expected.lastSeq, "lastSeq");
  assert.deepEqual(state.terminal, expected.terminal, "terminal");
  assert.deepEqual(state.pending, expected.pending, "pending");

  const turns = state.messages.filter((message) => message.role === "assistant");
  const userBlocks = state.messages.filter((message) => message.role === "user").flatMap((message) => message.content);
  assert.deepEqual(turns, expected.committedTurns, "the committed assistant turns");
  assert.deepEqual(
    userBlocks.filter((block) => block.type === "tool_result"),
    expected.committedResults,
    "the committed tool results",
  );
  assert.deepEqual(
    userBlocks.filter((block) => block.type !== "tool_result"),
    expected.typedUserBlocks,
    "the prompt and follow-ups",
  );

  // Every tool use is accounted for exactly once: answered in messages, or pending.
  const answeredInMessages = new Set(userBlocks.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : [])));
  const pendingIds = new Set(state.pending?.toolUses.map((use) => use.id) ?? []);
  for (const id of expected.toolUseIds) {
    assert.ok(answeredInMessages.has(id) !== pendingIds.has(id), `tool_use ${id} is neither answered in messages nor pending, or both`);
  }
}

/** Counts of the situations the runs reached, so a generator change cannot make the property vacuous. */
class Coverage {
  private readonly counts = new Map<string, number>();

  note(situation: string, happened = true): void {
    if (happened) this.counts.set(situation, (this.counts.get(situation) ?? 0) + 1);
  }

  assertAll(situations: readonly string[]): void {
    for (const situation of situations) assert.ok((this.counts.get(situation) ?? 0) > 0, `no generated prefix reached: ${situation}`);
  }

  toString(): string {
    return [...this.counts].map(([situation, count]) => `${situation}=${count}`).join(", ");
  }
}

function noteCoverage(coverage: Coverage, prefix: readonly JournalRecord[], state: RunState): void {
  const last = prefix[prefix.length - 1] as JournalRecord;
  const before = prefix[prefix.length - 2];
  coverage.note("interactive", prefix.length === 1 && (prefix[0] as RecordOf<"meta">).meta.interactive === true);
  coverage.note(`ends on terminal ${state.terminal?.reason}`, state.terminal !== undefined);
  coverage.note("pending batch", state.pending !== undefined);
  coverage.note("pending with some results", (state.pending?.results.length ?? 0) > 0);
  coverage.note("pending after budget", state.pending !== undefined && state.terminal?.reason === "budget");
  coverage.note("reopened after a terminal", before !== undefined && isKind(before, "terminal"));
  coverage.note(
    "follow-up joined to tool results",
    isKind(last, "user") && state.messages.some((m) => m.role === "user" && toolResultsOf(m).length > 0 && toolResultsOf(m).length < m.content.length),
  );
  coverage.note("follow-up joined to the prompt", isKind(last, "user") && state.messages.length === 1);
  coverage.note("remote tool call", isKind(last, "tool_result") && last.tool_result.remote === true);
  coverage.note("cache tokens absent", isKind(last, "assistant") && last.assistant.cache_read_tokens === undefined);
}

test("fold of every prefix of simulated runs is a resumable state that matches the records", (t) => {
  const started = performance.now();
  const coverage = new Coverage();
  let prefixes = 0;
  for (let runIndex = 0; runIndex < RUNS; runIndex++) {
    const seed = deriveSeed(BASE_SEED, runIndex);
    const { records } = simulateRun(seed, runIndex);
    const where = `FOLD_GEN_SEED=${BASE_SEED} run ${runIndex} (run seed ${seed})`;
    // The simulator must write what the code's own validation accepts, or the property proves nothing.
    records.forEach((record) =>
      withContext(
        () => `${where}: the simulator wrote an invalid record ${JSON.stringify(record)}`,
        () => assert.ok(checkRecord(record).ok, JSON.stringify(checkRecord(record))),
      ),
    );

    const snapshot = structuredClone(records);
    const text = journalText(records);
    for (let length = 1; length <= records.length; length++) {
      const prefix = records.slice(0, length);
      const context = () => `${where}, prefix of ${length} records:\n${journalText(prefix)}`;
      const state = withContext(context, () => fold(prefix));
      withContext(context, () => {
        checkFoldedPrefix(prefix, state);
        // Cheap per-prefix mutation check; the structural one below catches the rest.
        assert.equal(journalText(records), text, "fold mutated its input");
        assert.ok(prefix.length === length && prefix.every((record, i) => record === records[i]), "fold changed the array it was given");
      });
      noteCoverage(coverage, prefix, state);
      prefixes++;
    }
    withContext(
      () => `${where}: fold mutated its input`,
      () => assert.deepEqual(records, snapshot),
    );
  }
  // A handful of runs (while debugging one seed) need not reach every situation.
  if (RUNS >= 100)
    coverage.assertAll([
      "interactive",
      "ends on terminal completed",
      "ends on terminal suspended",
      "ends on terminal error",
      "ends on terminal budget",
      "ends on terminal max_iterations",
      "pending batch",
      "pending with some results",
      "pending after budget",
      "reopened after a terminal",
      "follow-up joined to tool results",
      "follow-up joined to the prompt",
      "remote tool call",
      "cache tokens absent",
    ]);
  t.diagnostic(`${RUNS} runs, ${prefixes} prefixes folded in ${Math.round(performance.now() - started)} ms`);
  t.diagnostic(`coverage: ${coverage}`);
});

// ---- corruptions -------------------------------------------------------------

/** A record as a corruption sees it: any field may be wrong or missing. */
type LooseRecord = { seq: number; protocol: string } & Record<string, unknown>;

interface Corrupted {
  records: LooseRecord[];
  code: RunStateErrorCode;
  /** The seq of the offending record, as it stands in the corrupted journal. */
  seq: number;
  detail: string;
}

interface Corruption {
  name: string;
  /** Corrupts `records` in place; undefined when this journal offers no place for it. */
  apply(records: LooseRecord[], rng: Rng): Omit<Corrupted, "records"> | undefined;
}

const indexesOfKind = (records: readonly LooseRecord[], kind: RecordKind) => records.flatMap((record, i) => (record.protocol === PROTOCOLS[kind] ? [i] : []));

/** Inserts a record at `index` and renumbers what follows, keeping seqs consecutive. */
function insertAt(records: LooseRecord[], index: number, record: LooseRecord): void {
  records.splice(index, 0, record);
  records.forEach((each, i) => {
    each.seq = i + 1;
  });
}

function retargetResult(record: LooseRecord, id: string, { block }: { block: boolean }): void {
  const payload = record.tool_result as { tool_use_id: string; result: ToolResultBlock };
  if (block) payload.result.tool_use_id = id;
  else {
    payload.tool_use_id = id;
    payload.result.tool_use_id = id;
  }
}

const CORRUPTIONS: readonly Corruption[] = [
  {
    name: "a second result for the same tool_use",
    apply(records, rng) {
      const results = indexesOfKind(records, "tool_result");
      if (results.length === 0) return undefined;
      const original = rng.pick(results);
      const at = rng.int(original + 1, records.length);
      insertAt(records, at, structuredClone(records[original] as LooseRecord));
      return { code: "ERR_CORRUPT", seq: at + 1, detail: `seq ${original + 1} repeated at seq ${at + 1}` };
    },
  },
  {
    name: "a tool result for an id no tool_use of the current turn has",
    apply(records, rng) {
      const results = indexesOfKind(records, "tool_result");
      if (results.length === 0) return undefined;
      const index = rng.pick(results);
      // Either an id nobody asked for, or one asked for by another turn, before or after.
      const allIds = records
        .flatMap((record) => (record.protocol === PROTOCOLS.assistant ? toolUsesOf((record as unknown as RecordOf<"assistant">).assistant.message) : []))
        .map((use) => use.id);
      const thisTurn = records.slice(0, index).findLast((record) => record.protocol === PROTOCOLS.assistant) as unknown as RecordOf<"assistant">;
      const thisTurnIds = new Set(toolUsesOf(thisTurn.assistant.message).map((use) => use.id));
      const candidates = allIds.filter((id) => !thisTurnIds.has(id));
      const id = candidates.length > 0 && rng.chance(0.5) ? rng.pick(candidates) : `toolu_stray_${rng.int(0, 1e6)}`;
      retargetResult(records[index] as LooseRecord, id, { block: false });
      return { code: "ERR_CORRUPT", seq: index + 1, detail: `seq ${index + 1} now answers ${id}` };
    },
  },
  {
    name: "a tool result whose block answers another id than its record",
    apply(records, rng) {
      const results = indexesOfKind(records, "tool_result");
      if (results.length === 0) return undefined;
      const index = rng.pick(results);
      retargetResult(records[index] as LooseRecord, `toolu_other_${rng.int(0, 1e6)}`, { block: true });
      return { code: "ERR_CORRUPT", seq: index + 1, detail: `seq ${index + 1}` };
    },
  },
  {
    name: "a tool result before any assistant turn",
    apply(records, rng) {
      const results = indexesOfKind(records, "tool_result");
      const firstTurn = indexesOfKind(records, "assistant")[0] ?? records.length;
      if (results.length === 0) return undefined;
      const at = rng.int(1, firstTurn);
      insertAt(records, at, structuredClone(records[rng.pick(results)] as LooseRecord));
      return { code: "ERR_CORRUPT", seq: at + 1, detail: `inserted at seq ${at + 1}` };
    },
  },
  {
    name: "a second meta record",
    apply(records, rng) {
      const at = rng.int(1, records.length);
      insertAt(records, at, structuredClone(records[0] as LooseRecord));
      return { code: "ERR_CORRUPT", seq: at + 1, detail: `inserted at seq ${at + 1}` };
    },
  },
  {
    name: "a seq that does not follow the one before by exactly one",
    apply(records, rng) {
      if (records.length < 2) return undefined;
      const index = rng.int(1, records.length - 1);
      const shift = rng.pick([-2, -1, 1, 2, 7]);
      for (const record of records.slice(index)) record.seq += shift;
      const seq = (records[index] as LooseRecord).seq;
      return { code: "ERR_CORRUPT", seq, detail: `seqs from index ${index} shifted by ${shift}` };
    },
  },
  {
    name: "a first record that is not the meta record at seq 1",
    apply(records, rng) {
      const variant = rng.pick(["drop meta", "drop meta and renumber", "meta at seq 2", "meta with another protocol"]);
      if (variant.startsWith("drop")) {
        if (records.length < 2) return undefined;
        records.shift();
        if (variant === "drop meta and renumber") records.forEach((record, i) => (record.seq = i + 1));
      } else if (variant === "meta at seq 2") {
        records.forEach((record) => record.seq++);
      } else {
        (records[0] as LooseRecord).protocol = PROTOCOLS.assistant;
      }
      return { code: "ERR_NO_META", seq: (records[0] as LooseRecord).seq, detail: variant };
    },
  },
  {
    name: "a missing payload",
    apply(records, rng) {
      const index = rng.int(0, records.length - 1);
      const record = records[index] as LooseRecord;
      const key = record.protocol.slice(record.protocol.lastIndexOf(".") + 1);
      const variant = rng.pick(["deleted", "null", "under another kind's key"]);
      const payload = record[key];
      delete record[key];
      if (variant === "null") record[key] = null;
      if (variant === "under another kind's key") record[key === "assistant" ? "user" : "assistant"] = payload;
      return { code: "ERR_CORRUPT", seq: index + 1, detail: `${key} payload ${variant} at seq ${index + 1}` };
    },
  },
  {
    name: "an unknown protocol",
    apply(records, rng) {
      if (records.length < 2) return undefined;
      const index = rng.int(1, records.length - 1);
      (records[index] as LooseRecord).protocol = rng.pick(["io.example.session.bogus", "io.choria.fisk-ai.v2.session.assistant", "meta"]);
      return { code: "ERR_CORRUPT", seq: index + 1, detail: `seq ${index + 1}` };
    },
  },
];

function corruptSomeRun(corruption: Corruption, caseIndex: number): Corrupted & { where: string } {
  for (let attempt = 0; attempt < 50; attempt++) {
    const seed = deriveSeed(BASE_SEED ^ 0xc0ffee, caseIndex * 64 + attempt);
    const { records } = simulateRun(seed, caseIndex);
    fold(records); // the journal is valid before it is corrupted
    const corrupted = structuredClone(records) as unknown as LooseRecord[];
    const outcome = corruption.apply(corrupted, new Rng(seed ^ 0x5a5a5a5a));
    if (outcome !== undefined) {
      return { ...outcome, records: corrupted, where: `FOLD_GEN_SEED=${BASE_SEED} corruption case ${caseIndex} (run seed ${seed})` };
    }
  }
  throw new Error(`no simulated journal offered a place for: ${corruption.name}`);
}

test("fold refuses single-record corruptions of simulated runs, naming the offending seq", (t) => {
  const started = performance.now();
  const applied = new Map<string, number>();
  for (let caseIndex = 0; caseIndex < CORRUPTION_CASES; caseIndex++) {
    const corruption = CORRUPTIONS[caseIndex % CORRUPTIONS.length] as Corruption;
    const corrupted = corruptSomeRun(corruption, caseIndex);
    const context = () =>
      `${corrupted.where}: ${corruption.name} (${corrupted.detail}), expected ${corrupted.code} at seq ${corrupted.seq}:\n${journalText(corrupted.records)}`;
    withContext(context, () => {
      let thrown: unknown;
      try {
        fold(corrupted.records as unknown as JournalRecord[]);
      } catch (error) {
        thrown = error;
      }
      assert.ok(thrown instanceof RunStateError, `fold did not throw a RunStateError but ${String(thrown)}`);
      assert.equal(thrown.code, corrupted.code, `code (message: ${thrown.message})`);
      assert.equal(thrown.seq, corrupted.seq, `seq (message: ${thrown.message})`);
      assert.match(thrown.message, new RegExp(`\\bseq ${corrupted.seq}\\b`), "the message names the seq");
    });
    applied.set(corruption.name, (applied.get(corruption.name) ?? 0) + 1);
  }
  t.diagnostic(`${CORRUPTION_CASES} corrupted journals checked in ${Math.round(performance.now() - started)} ms`);
  t.diagnostic([...applied].map(([name, count]) => `${name}: ${count}`).join("; "));
});
