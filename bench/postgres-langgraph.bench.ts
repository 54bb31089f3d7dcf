// fisk-ai's Postgres store against LangGraph.js's Postgres checkpointer
// (@langchain/langgraph-checkpoint-postgres), on one server: `npm run bench:langgraph -- [--turns N]`
// (it installs bench/langgraph's packages first: they are not the project's). The same
// tool-calling conversation, a turn a model message with one tool call and its result, kept by
// each: fisk-ai's durable appends (a record each), LangGraph's graph of a model node and a tool
// node checkpointed every super-step. For each side, in a database of its own: the WAL written
// (pg_current_wal_lsn), the bytes its tables grew by, the statements the server ran
// (pg_stat_statements, BEGIN and COMMIT among them), the time to persist the conversation and
// the time to read it back for a resume (fisk-ai: the run's records decoded and folded;
// LangGraph: getState of the thread, in its own process, its pool warmed first).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { connectPostgresStore } from "../src/backends/postgres/postgres-store.js";
import { assistantEntry, metaPayload, terminalEntry, toolResultEntry } from "../src/conformance/record-builders.js";
import { startPostgres, type PostgresServer } from "../test/helpers/postgres-server.js";
import { formatRatio, machineLine, printTable } from "./report.js";

const { values } = parseArgs({ options: { turns: { type: "string", default: "500" } } });
const TURNS = Number(values.turns);
const SIDE = resolve("bench/langgraph/langgraph-side.mjs");

interface Turn {
  text: string;
  callId: string;
  tool: string;
  input: { query: string };
  result: string;
}

/** A conversation of `turns` tool calls, its results about 1 KB each, as an agent's often are. */
function conversation(turns: number) {
  return {
    prompt: "Go through the inventory, one item at a time, and report what is low.",
    turns: Array.from(
      { length: turns },
      (_, index): Turn => ({
        text: `Looking up item ${index} next.`,
        callId: `toolu_${String(index).padStart(6, "0")}`,
        tool: "lookup",
        input: { query: `item ${index}` },
        result: `item ${index}: ${Array.from({ length: 40 }, (_, line) => `bin ${line} holds ${(index * 7 + line) % 97} units`).join("; ")}`,
      }),
    ),
    answer: "Items 3, 17 and 42 are low.",
  };
}

interface Figures {
  walBytes: number;
  tableBytes: number;
  statements: number;
  persistMs: number;
  resumeMs: number;
}

/** What the server counts, read as the superuser in the postgres database. */
async function serverCounts(admin: pg.Client, database: string): Promise<{ wal: string; statements: number; tableBytes: number }> {
  const wal = (await admin.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]?.lsn as string;
  const { rows } = await admin.query<{ calls: string | null }>(
    "SELECT sum(calls) AS calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1",
    [database],
  );
  return { wal, statements: Number(rows[0]?.calls ?? 0), tableBytes: await tableBytes(admin, database) };
}

/** The bytes of every table, index and TOAST table of the database's non-system schemas. */
async function tableBytes(admin: pg.Client, database: string): Promise<number> {
  const client = new pg.Client({ host: admin.host, port: admin.port, user: "postgres", database });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string | null }>(
      `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`,
    );
    return Number(rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}

/** Runs `measured` between two readings of the server's counts for `database`; the statements of the readings are not counted. */
async function measure(admin: pg.Client, database: string, measured: () => Promise<{ persistMs: number; resumeMs: number }>): Promise<Figures> {
  await admin.query("SELECT pg_stat_statements_reset()");
  const before = await serverCounts(admin, database);
  const times = await measured();
  const after = await serverCounts(admin, database);
  const { rows } = await admin.query<{ bytes: string }>("SELECT pg_wal_lsn_diff($1, $2)::bigint AS bytes", [after.wal, before.wal]);
  return {
    walBytes: Number(rows[0]?.bytes ?? 0),
    tableBytes: after.tableBytes - before.tableBytes,
    statements: after.statements,
    ...times,
  };
}

async function fiskSide(server: PostgresServer, admin: pg.Client, talk: ReturnType<typeof conversation>): Promise<Figures> {
  const url = `${server.urlFor("fisk")}?schema=fisk_ai`;
  const store = await connectPostgresStore({ backend: "postgres", url });
  try {
    return await measure(admin, "fisk", async () => {
      let started = performance.now();
      const journal = await store.create("inventory", metaPayload("inventory", { prompt: talk.prompt }));
      let seq = 1;
      for (const [index, turn] of talk.turns.entries()) {
        const entry = assistantEntry(index, turn.text, [turn.callId]);
        entry.assistant.message.content = [
          { type: "text", text: turn.text },
          { type: "tool_use", id: turn.callId, name: turn.tool, input: turn.input },
        ];
        await journal.append(++seq, entry);
        await journal.append(++seq, toolResultEntry(turn.callId, turn.result));
      }
      await journal.append(++seq, assistantEntry(talk.turns.length, talk.answer));
      await journal.append(++seq, terminalEntry("completed"));
      await journal.close();
      const persistMs = performance.now() - started;
      started = performance.now();
      const state = await store.load("inventory");
      const resumeMs = performance.now() - started;
      if (state.lastSeq !== seq) throw new Error(`loaded ${state.lastSeq} records of ${seq}`);
      return { persistMs, resumeMs };
    });
  } finally {
    await store.close();
  }
}

function langGraphSide(server: PostgresServer, admin: pg.Client, conversationFile: string): Promise<Figures> {
  const url = server.urlFor("langgraph");
  const side = (mode: string) => execFileSync(process.execPath, [SIDE, mode, url, conversationFile], { encoding: "utf8" }).trim();
  side("setup");
  let resumeMs = 0;
  return measure(admin, "langgraph", async () => {
    const persistMs = Number(side("persist"));
    resumeMs = Number(side("resume"));
    return { persistMs, resumeMs };
  });
}

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-bench-langgraph-"));
const server = await startPostgres({ durable: true, settings: { shared_preload_libraries: "'pg_stat_statements'" } });
const admin = new pg.Client({ connectionString: server.url });
try {
  console.log(`npm run bench:langgraph -- --turns ${TURNS}`);
  console.log(machineLine(dir));
  await admin.connect();
  await admin.query("CREATE EXTENSION pg_stat_statements");
  for (const database of ["fisk", "langgraph"]) await admin.query(`CREATE DATABASE ${database}`);
  const talk = conversation(TURNS);
  const conversationFile = join(dir, "conversation.json");
  writeFileSync(conversationFile, JSON.stringify(talk));
  const langgraph = await langGraphSide(server, admin, conversationFile);
  const fisk = await fiskSide(server, admin, talk);
  const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
  const row = (name: string, figures: Figures) => [
    name,
    mb(figures.walBytes),
    mb(figures.tableBytes),
    String(figures.statements),
    (figures.statements / TURNS).toFixed(1),
    figures.persistMs.toFixed(0),
    figures.resumeMs.toFixed(1),
  ];
  printTable(
    `The same ${TURNS}-turn tool-calling conversation kept by each, on one Postgres 15 (fsync on)`,
    ["side", "WAL MB", "tables MB", "statements", "a turn", "persist ms", "resume ms"],
    [row("LangGraph.js PostgresSaver", langgraph), row("fisk-ai Postgres store", fisk)],
    [
      `LangGraph / fisk-ai: WAL ${formatRatio(langgraph.walBytes / fisk.walBytes, 1)}, tables ${formatRatio(langgraph.tableBytes / fisk.tableBytes, 1)}, persist ${formatRatio(langgraph.persistMs / fisk.persistMs, 2)}, resume ${formatRatio(langgraph.resumeMs / fisk.resumeMs, 2)}`,
      "goals (issue 57): at least 50x fewer bytes, about 2 statements a turn of one tool call, at least 5x faster to persist, resume no slower",
      "a turn: a model message with one tool call and its ~1 KB result; fisk-ai appends each record durably (one statement, one commit)",
    ],
  );
} finally {
  await admin.end().catch(() => undefined);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
