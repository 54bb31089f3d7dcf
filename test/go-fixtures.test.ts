// Journals written in the Go implementation's own bytes (test/fixtures/go, made by
// scripts/go-fixtures from structs mirroring choria-io/fisk-ai's record versions 1 to 3)
// must fold here to the conversation and counters the Go implementation's Fold computes
// for them (each fixture's expected.json, computed by that program's port of its
// state.go), and `session ls`, `show` and `verify` must agree on every one of them.
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { computeFingerprint, fingerprintStyle, goSystemJson, goToolsJson } from "../src/agent/fingerprint.js";
import { FileStore } from "../src/backends/file/file-store.js";
import { decodeRecordLine, encodeRecordIn } from "../src/runstate/records/journal-codec.js";
import type { MetaRecord } from "../src/runstate/records/records.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { latestBlocks, startFakeAnthropic, type SentMessage } from "./helpers/fake-anthropic-server.js";

const FIXTURES = new URL("../../test/fixtures/go/", import.meta.url).pathname;

/** The normalized form scripts/go-fixtures/fold.go writes: per block its type and whichever of these it has. */
interface Block {
  type: string;
  id?: string;
  tool_use_id?: string;
  name?: string;
  text?: string;
  thinking?: string;
  is_error?: boolean;
}
interface NormMessage {
  role: string;
  content: Block[];
}
interface Expected {
  scenario: string;
  version: number;
  run_id: string;
  interactive: boolean;
  records: number;
  torn_tail: boolean;
  messages: NormMessage[];
  counters: Record<"llm_calls" | "tool_calls" | "remote_tool_calls" | "in_tokens" | "out_tokens" | "cache_read_tokens" | "cache_create_tokens", number>;
  next_iteration: number;
  last_stop_reason: string;
  terminal: { reason: string; message?: string } | null;
  pending: { iteration: number; stop_reason: string; tool_use_ids: string[]; answered: string[]; unanswered: string[] } | null;
  /** What the journal's fingerprint hashes were computed from, as the Go implementation computes them. */
  fingerprint_inputs: { system: string[]; system_json: string; tools_json?: string; tools_hash_exact: boolean };
}

/**
 * What the Go implementation computes for each fixture: version, scenario, records read
 * (a torn tail dropped), model calls, tool calls, input tokens, output tokens, cache
 * read, cache create, next iteration, last stop reason, terminal reason, unanswered
 * tools of a pending batch, torn tail. Version 1 has no interactive run: its journal has
 * no user record and no interactive flag.
 */
type Row = [number, string, number, number, number, number, number, number, number, number, string, string | null, number, boolean];
const TABLE: Row[] = [
  [1, "parallel-batch", 7, 2, 3, 2124, 263, 0, 0, 2, "end_turn", "completed", 0, false],
  [1, "paused-turn", 6, 3, 1, 7175, 180, 0, 0, 3, "end_turn", "completed", 0, false],
  [1, "suspended-resumed", 8, 3, 2, 1832, 173, 0, 1120, 3, "end_turn", "completed", 0, false],
  [1, "thinking", 5, 2, 1, 2242, 306, 1830, 0, 2, "end_turn", "completed", 0, false],
  [1, "tool-search", 5, 2, 1, 5112, 195, 0, 0, 2, "end_turn", "completed", 0, false],
  [1, "torn-batch", 3, 1, 1, 640, 142, 0, 0, 1, "tool_use", null, 2, true],
  [2, "interactive", 9, 4, 1, 2350, 104, 0, 0, 4, "end_turn", "suspended", 0, false],
  [2, "parallel-batch", 7, 2, 3, 2124, 263, 0, 0, 2, "end_turn", "completed", 0, false],
  [2, "paused-turn", 6, 3, 1, 7175, 180, 0, 0, 3, "end_turn", "completed", 0, false],
  [2, "suspended-resumed", 8, 3, 2, 1832, 173, 0, 1120, 3, "end_turn", "completed", 0, false],
  [2, "thinking", 5, 2, 1, 2242, 306, 1830, 0, 2, "end_turn", "completed", 0, false],
  [2, "tool-search", 5, 2, 1, 5112, 195, 0, 0, 2, "end_turn", "completed", 0, false],
  [2, "torn-batch", 3, 1, 1, 640, 142, 0, 0, 1, "tool_use", null, 2, true],
  [3, "interactive", 9, 4, 1, 2350, 104, 0, 0, 4, "end_turn", "suspended", 0, false],
  [3, "parallel-batch", 7, 2, 3, 2124, 263, 0, 0, 2, "end_turn", "completed", 0, false],
  [3, "paused-turn", 6, 3, 1, 7175, 180, 0, 0, 3, "end_turn", "completed", 0, false],
  [3, "suspended-resumed", 8, 3, 2, 1832, 173, 0, 1120, 3, "end_turn", "completed", 0, false],
  [3, "thinking", 5, 2, 1, 2242, 306, 1830, 0, 2, "end_turn", "completed", 0, false],
  [3, "tool-search", 5, 2, 1, 5112, 195, 0, 0, 2, "end_turn", "completed", 0, false],
  [3, "torn-batch", 3, 1, 1, 640, 142, 0, 0, 1, "tool_use", null, 2, true],
];

function rowOf(e: Expected): Row {
  const c = e.counters;
  return [
    e.version,
    e.scenario,
    e.records,
    c.llm_calls,
    c.tool_calls,
    c.in_tokens,
    c.out_tokens,
    c.cache_read_tokens,
    c.cache_create_tokens,
    e.next_iteration,
    e.last_stop_reason,
    e.terminal?.reason ?? null,
    e.pending?.unanswered.length ?? 0,
    e.torn_tail,
  ];
}

/** A block as the fixture program normalizes one: the same fields, read the same way. */
function normalizeBlock(block: Record<string, unknown>): Block {
  const out: Block = { type: String(block.type) };
  for (const key of ["id", "tool_use_id", "name", "text", "thinking"] as const) {
    if (typeof block[key] === "string" && block[key] !== "") out[key] = block[key];
  }
  if (block.type === "tool_result") {
    const content = block.content;
    const text = typeof content === "string" ? content : (content as { text?: string }[]).map((part) => part.text ?? "").join("");
    if (text !== "") out.text = text;
  }
  if (block.is_error === true) out.is_error = true;
  return out;
}

/**
 * Consecutive messages of one role joined: the Go fold keeps a paused turn and its
 * continuation as two assistant messages, ours as one; the API takes both as one turn.
 */
function joinRoles(messages: readonly NormMessage[]): NormMessage[] {
  const out: NormMessage[] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (last !== undefined && last.role === message.role) last.content.push(...message.content);
    else out.push({ role: message.role, content: [...message.content] });
  }
  return out;
}

/** Our messages in the normalized form, roles joined. */
function normalize(messages: readonly { role: string; content: readonly unknown[] }[]): NormMessage[] {
  return joinRoles(
    messages.map((message) => ({ role: message.role, content: message.content.map((block) => normalizeBlock(block as Record<string, unknown>)) })),
  );
}

interface Fixture {
  name: string;
  runsDir: string;
  expected: Expected;
}

const FIXTURE_LIST: Fixture[] = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((version) =>
    readdirSync(join(FIXTURES, version.name)).map((scenario) => {
      const dir = join(FIXTURES, version.name, scenario);
      return {
        name: `${version.name}/${scenario}`,
        runsDir: join(dir, "runs"),
        expected: JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Expected,
      };
    }),
  );

const scratch = mkdtempSync(join(tmpdir(), "fisk-go-fixtures-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the fixture's state directory, so nothing a reader writes (a cache) lands in the repository. */
function stateDirOf(fixture: Fixture, purpose: string): string {
  const dir = join(scratch, fixture.name.replace("/", "-") + "-" + purpose);
  cpSync(fixture.runsDir, dir, { recursive: true });
  return dir;
}

/**
 * A directory whose agent.yaml has the Go runs' model, tool and budgets. Their system prompt
 * had a second part (a note the Go implementation adds) that a configuration here cannot give.
 */
function goRunWorkspace(name: string, stateDir: string): string {
  const work = join(scratch, name);
  mkdirSync(work);
  writeFileSync(
    join(work, "agent.yaml"),
    `provider: anthropic
model: claude-sonnet-4-5
system: "You are an operations agent. Use the tools you are given; never guess at a host's state."
tools:
  - name: restart_worker
    description: Runs restart_worker on the fleet.
    command: [sh, -c, 'echo "$1 restarted, pid 4242"', sh, "{name}"]
    input_schema: { type: object, properties: { name: { type: string } }, required: [name] }
budget: { max_tokens: 8192, max_iterations: 25 }
session: { state_dir: ${stateDir} }
`,
  );
  return work;
}

describe("journals written by the Go implementation", () => {
  it("the table lists every fixture with the counters the Go fold computed for it", () => {
    assert.deepEqual(
      FIXTURE_LIST.map((fixture) => rowOf(fixture.expected)),
      TABLE,
    );
  });

  it("a version 3 journal folds, in the Go implementation, to what the version 2 journal of the same run folds to", () => {
    const v3 = FIXTURE_LIST.filter((fixture) => fixture.expected.version === 3);
    assert.equal(v3.length, 7);
    for (const fixture of v3) {
      const v2 = FIXTURE_LIST.find((other) => other.name === fixture.name.replace("v3/", "v2/"));
      const { version: _v3, fingerprint_inputs: _f3, ...three } = fixture.expected;
      const { version: _v2, fingerprint_inputs: _f2, ...two } = (v2 as Fixture).expected;
      assert.deepEqual(three, two, fixture.name);
    }
  });

  it("folds a thinking block's signature to the string the API sent, in every version (version 3 stores its bytes as base64)", async () => {
    const signatures: string[][] = [];
    for (const fixture of FIXTURE_LIST.filter((f) => f.expected.scenario === "thinking")) {
      const state = await new FileStore({ dir: stateDirOf(fixture, "signature") }).load(fixture.expected.run_id);
      signatures.push(
        state.messages.flatMap((message) =>
          (message.content as { type: string; signature?: unknown }[]).filter((block) => block.type === "thinking").map((block) => String(block.signature)),
        ),
      );
    }
    assert.equal(signatures.length, 3);
    assert.equal(signatures[0]?.length, 2);
    assert.deepEqual(signatures[1], signatures[0], "version 2 against version 1");
    assert.deepEqual(signatures[2], signatures[0], "version 3 against version 1");
  });

  // The first fixture's call through a spawned CLI, the others in this process.
  const cli = commandsInProcess(["session", "run"]);
  for (const fixture of FIXTURE_LIST) {
    const expected = fixture.expected;

    it(`${fixture.name}: folds to the Go implementation's conversation, counters, terminal and pending batch`, async () => {
      const store = new FileStore({ dir: stateDirOf(fixture, "fold") });
      const state = await store.load(expected.run_id);
      assert.equal(state.runId, expected.run_id);
      assert.equal(state.meta.version, expected.version);
      // The hashes are sha256 of the bytes the Go implementation hashes (its computeFingerprint).
      const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
      const inputs = expected.fingerprint_inputs;
      assert.equal(state.meta.fingerprint.system_hash, sha256(inputs.system_json));
      assert.equal(inputs.tools_hash_exact, expected.version === 3);
      if (inputs.tools_json !== undefined) assert.equal(state.meta.fingerprint.tools_hash, sha256(inputs.tools_json));
      assert.equal(state.meta.interactive ?? false, expected.interactive);
      assert.equal(state.lastSeq, expected.records, "the records read (a torn tail dropped)");
      assert.deepEqual(normalize(state.messages), joinRoles(expected.messages));
      const c = state.counters;
      assert.deepEqual(
        {
          llm_calls: c.modelCalls,
          tool_calls: c.toolCalls,
          remote_tool_calls: c.remoteToolCalls,
          in_tokens: c.inTokens,
          out_tokens: c.outTokens,
          cache_read_tokens: c.cacheReadTokens,
          cache_create_tokens: c.cacheCreateTokens,
        },
        expected.counters,
      );
      assert.equal(state.nextIteration, expected.next_iteration);
      assert.equal(state.paused, expected.last_stop_reason === "pause_turn");
      assert.deepEqual(state.terminal === undefined ? null : { ...state.terminal }, expected.terminal);
      const pending = state.pending;
      assert.deepEqual(
        pending === undefined
          ? null
          : {
              iteration: pending.turn.iteration,
              stop_reason: pending.turn.stop_reason,
              tool_use_ids: pending.toolUses.map((use) => use.id),
              answered: pending.results.map((result) => result.tool_use_id),
              unanswered: pending.toolUses.filter((use) => !pending.answered.has(use.id)).map((use) => use.id),
            },
        expected.pending,
      );
    });

    it(`${fixture.name}: session ls, show and verify agree on it`, async () => {
      const dir = stateDirOf(fixture, "cli");
      const options = { cwd: scratch, env: { ...process.env, NO_COLOR: "1" } };
      const [ls, show, verify] = await Promise.all([
        cli(["session", "ls", "--json", "--state-dir", dir], options),
        cli(["session", "show", expected.run_id, "--json", "--state-dir", dir], options),
        cli(["session", "verify", expected.run_id, "--state-dir", dir], options),
      ]);
      assert.equal(ls.code, 0, ls.stderr);
      assert.equal(show.code, 0, show.stderr);
      const [listed] = JSON.parse(ls.stdout) as { id: string; status: string; last_seq: number; problem: string | null }[];
      const shown = JSON.parse(show.stdout) as {
        status: string;
        last_seq: number;
        next_iteration: number;
        counters: Record<string, number>;
        messages: { role: string; content: unknown[] }[];
      };
      const status = expected.terminal?.reason ?? "open";
      assert.deepEqual([listed?.id, listed?.status, listed?.problem, listed?.last_seq], [expected.run_id, status, null, expected.records]);
      assert.deepEqual([shown.status, shown.last_seq, shown.next_iteration], [status, expected.records, expected.next_iteration]);
      assert.equal(shown.counters.model_calls, expected.counters.llm_calls);
      assert.equal(shown.counters.tool_calls, expected.counters.tool_calls);
      assert.deepEqual(normalize(shown.messages), joinRoles(expected.messages));
      if (expected.torn_tail) {
        // ls and show read past the torn final write; verify names it, as repairable, and exits 8.
        assert.equal(verify.code, 8, verify.stdout + verify.stderr);
        assert.match(verify.stdout, new RegExp(`^${expected.run_id}: torn_tail: line ${expected.records + 1} is a torn final write .*\\(repairable\\)\\n$`));
      } else {
        assert.equal(verify.code, 0, verify.stdout + verify.stderr);
        assert.equal(verify.stdout, `${expected.run_id}: ok, ${expected.records} records\n`);
      }
    });
  }

  it("writes every line of every version 3 fixture back byte for byte as the Go implementation wrote it", () => {
    let lines = 0;
    for (const fixture of FIXTURE_LIST.filter((candidate) => candidate.expected.version === 3)) {
      const journal = readFileSync(join(fixture.runsDir, `${fixture.expected.run_id}.json`), "utf8");
      for (const line of journal.slice(0, journal.lastIndexOf("\n")).split("\n")) {
        assert.equal(encodeRecordIn(3, decodeRecordLine(line)), `${line}\n`, fixture.name);
        lines++;
      }
    }
    assert.equal(lines, 43);
  });

  it("hashes the system prompt (every version) and the tool set (version 3) as the Go implementation does", () => {
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    for (const fixture of FIXTURE_LIST) {
      const { version, fingerprint_inputs: inputs } = fixture.expected;
      const journal = readFileSync(join(fixture.runsDir, `${fixture.expected.run_id}.json`), "utf8");
      const meta = decodeRecordLine(journal.slice(0, journal.indexOf("\n"))) as MetaRecord;
      const style = fingerprintStyle(meta.meta);
      assert.equal(style, version === 3 ? "go-v3" : "go-v2", fixture.name);
      assert.equal(goSystemJson(style as "go-v3" | "go-v2", inputs.system), inputs.system_json, fixture.name);
      assert.equal(sha256(inputs.system_json), meta.meta.fingerprint.system_hash, fixture.name);
      if (version !== 3) continue;
      const defs = JSON.parse(inputs.tools_json as string) as {
        Name: string;
        Description: string;
        InputSchema: Record<string, unknown>;
        DeferLoading: boolean;
      }[];
      // Go defers ten tools or more behind tool search (the tool-search run); computeFingerprint decides it the same way.
      const deferred = defs.length >= 10;
      assert.ok(
        defs.every((def) => def.DeferLoading === deferred),
        fixture.name,
      );
      // The schema's keys in another order hash the same: Go's map keys are sorted.
      const specs = defs.map((def) => ({
        name: def.Name,
        description: def.Description,
        input_schema: Object.fromEntries(Object.entries(def.InputSchema).reverse()),
      }));
      const fingerprint = computeFingerprint(
        { provider: "anthropic", model: meta.meta.fingerprint.model, system: "", tools: specs, thinking: { mode: "off" }, maxTokens: 0, maxIterations: 0 },
        "go-v3",
      );
      assert.equal(goToolsJson(specs, deferred), inputs.tools_json, fixture.name);
      assert.equal(fingerprint.tools_hash, meta.meta.fingerprint.tools_hash, fixture.name);
    }
  });

  it("a version 3 session resumed here, after a crash mid-batch, is compared on the Go implementation's hashes, completes against the strict fake API, and is still version 3", async () => {
    const fixture = FIXTURE_LIST.find((candidate) => candidate.name === "v3/torn-batch") as Fixture;
    const runId = fixture.expected.run_id;
    const dir = stateDirOf(fixture, "resume");
    const journalPath = join(dir, `${runId}.json`);
    const before = readFileSync(journalPath);
    const kept = before.subarray(0, before.lastIndexOf(0x0a) + 1).toString("utf8");
    const server = await startFakeAnthropic((request) => {
      const messages = (request.body as { messages: SentMessage[] }).messages;
      const results = latestBlocks(messages).filter((block) => block.type === "tool_result");
      return {
        content: [{ type: "text", text: `Restarted: ${results.map((block) => JSON.stringify(block.content)).join(", ")}` }],
        stop_reason: "end_turn",
        usage: { input_tokens: 900, output_tokens: 30 },
      };
    });
    try {
      const work = goRunWorkspace("v3-resume", dir);
      const options = {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: work, NO_COLOR: "1", ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url },
      };
      const refused = await cli(["run", "--config", "agent.yaml", "--resume", runId], options);
      assert.equal(refused.code, 2, refused.stderr);
      // Model, tool set, thinking and budgets compare equal: only the prompt's Go-only part differs.
      assert.match(
        refused.stderr,
        /^fisk-ai: cannot resume session \S+: its configuration changed:\n {2}system prompt: changed\nrestore the configuration, or resume anyway with --force \(a record version 3 journal holds the Go implementation's hashes/,
      );
      // Opening it cut the torn tail, as any open does; nothing was added.
      assert.equal(readFileSync(journalPath, "utf8"), kept);

      const resumed = await cli(["run", "--config", "agent.yaml", "--resume", runId, "--force"], options);
      assert.equal(resumed.code, 0, resumed.stderr);
      // The Go run's result for worker-1, then the two tools run here, in the model's order.
      assert.equal(resumed.stdout, 'Restarted: "worker-1 restarted, pid 48211", "worker-2 restarted, pid 4242\\n", "worker-3 restarted, pid 4242\\n"\n');
      assert.equal(server.requests.length, 1);
      assert.ok(
        server.requests.every((request) => request.accepted),
        "the fake refused the resumed conversation",
      );

      const journal = readFileSync(journalPath, "utf8");
      assert.ok(journal.startsWith(kept), "the Go-written records are kept byte for byte, the torn tail cut");
      const added = journal.slice(kept.length).split("\n").slice(0, -1);
      assert.deepEqual(
        added.map((line) => (JSON.parse(line) as { protocol: string }).protocol.split(".").at(-1)),
        ["tool_result", "tool_result", "assistant", "terminal"],
      );
      for (const line of added) {
        // The Go implementation's shape: a result's content is text, a block has no type.
        assert.doesNotMatch(line, /"type":/, line);
        assert.equal(encodeRecordIn(3, decodeRecordLine(line)), `${line}\n`);
      }
      assert.deepEqual(JSON.parse(added[2] as string).assistant.message, { role: "assistant", content: [{ text: { text: resumed.stdout.trimEnd() } }] });
      const verified = await cli(["session", "verify", runId, "--state-dir", dir], options);
      assert.equal(verified.stdout, `${runId}: ok, 7 records\n`);
      const state = await new FileStore({ dir }).load(runId);
      assert.deepEqual([state.meta.version, state.terminal?.reason, state.counters.toolCalls], [3, "completed", 3]);
    } finally {
      await server.close();
    }
  });

  it("a version 2 session from the Go implementation is refused without --force, saying its tool-set hash cannot be compared here; with --force it completes, still version 2", async () => {
    const fixture = FIXTURE_LIST.find((candidate) => candidate.name === "v2/torn-batch") as Fixture;
    const runId = fixture.expected.run_id;
    const dir = stateDirOf(fixture, "resume");
    const server = await startFakeAnthropic(() => ({
      content: [{ type: "text", text: "All three restarted." }],
      stop_reason: "end_turn",
      usage: { input_tokens: 900, output_tokens: 8 },
    }));
    try {
      const work = goRunWorkspace("v2-resume", dir);
      const options = {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: work, NO_COLOR: "1", ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url },
      };
      const refused = await cli(["run", "--config", "agent.yaml", "--resume", runId], options);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(
        refused.stderr,
        `fisk-ai: cannot resume session ${runId} without --force: the Go implementation wrote it, and its hashes cannot all be compared here:\n` +
          "  system prompt: changed\n" +
          "  tool set: not comparable (the journal holds the Go implementation's version 2 hash of it, which this fisk-ai cannot compute)\n" +
          "if this configuration is the one it ran with, resume it with --force\n",
      );
      assert.equal(server.requests.length, 0);
      const resumed = await cli(["run", "--config", "agent.yaml", "--resume", runId, "--force"], options);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, "All three restarted.\n");
      assert.ok(
        server.requests.every((request) => request.accepted),
        "the fake refused the resumed conversation",
      );
      const state = await new FileStore({ dir }).load(runId);
      assert.deepEqual([state.meta.version, state.terminal?.reason, state.counters.toolCalls, state.lastSeq], [2, "completed", 3, 7]);
    } finally {
      await server.close();
    }
  });
});
