// covers: src/backends/postgres/postgres-backend.ts, src/backends/built-in-urls.ts, src/cli/store/init.ts, src/cli/store/table.ts, src/backends/postgres/postgres-url.ts
// covers: src/backends/session-notes.ts
// The CLI on a Postgres store, end to end on a real server (a cluster this file starts):
// `run`, `session ls/show/export`, a resume, `submit` and `queue ls/rm`, `session mv` to files and back with the
// journal byte for byte the same, memory notes kept beside the sessions (`memory ls/show/rm`),
// `store init`, and what a bad URL or an unreachable server says (one line, no password, no stack).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CliResult } from "./helpers/cli-harness.js";
import { freePort } from "./helpers/nats-server.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { skipWithout } from "./helpers/programs.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-postgres-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };
const FIRST = "The first answer.";
const SECOND = "The answer to the follow-up.";

writeFileSync(join(ROOT, "agent.yaml"), "provider: script\nmodel: script-postgres\nscript: answers.yaml\n");
writeFileSync(join(ROOT, "answers.yaml"), `turns:\n  - text: "${FIRST}"\n  - text: "${SECOND}"\n`);

const fisk = commandsInProcess(["session", "run", "store", "submit", "queue", "memory"]);

function cli(args: string[], env: NodeJS.ProcessEnv = ENV): Promise<CliResult> {
  return fisk(args, { cwd: ROOT, env });
}

function ok(result: CliResult, what: string): string {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  return result.stdout;
}

describe("the CLI on a Postgres store", { skip: skipWithout("postgres") }, () => {
  let server: PostgresServer;
  let store: string;
  before(async () => {
    server = await startPostgres();
    store = `${server.url}?schema=cli`;
  });
  after(() => server?.stop());

  it("runs, lists, shows, exports and resumes a session kept in Postgres", async () => {
    assert.equal(ok(await cli(["run", "--checkpoint", "--name", "pg-one", "--store", store, "hello"]), "run"), `${FIRST}\n`);
    const listed = JSON.parse(ok(await cli(["session", "ls", "--json", "--store", store]), "ls")) as { id: string; status: string }[];
    assert.deepEqual(
      listed.map((row) => [row.id, row.status]),
      [["pg-one", "completed"]],
    );
    assert.match(ok(await cli(["session", "show", "pg-one", "--store", store]), "show"), /^status\s+completed$/m);
    assert.match(ok(await cli(["session", "show", "pg-one", "--transcript", "--store", store]), "show --transcript"), /The first answer\./);
    const exported = ok(await cli(["session", "export", "pg-one", "--store", store]), "export");
    // The rows hold the lines the export gives, byte for byte.
    const rows = server.psql("SELECT convert_from(line, 'UTF8') FROM cli.records WHERE run_id = 'pg-one' ORDER BY seq");
    assert.equal(exported, rows);
    assert.equal(ok(await cli(["run", "--resume", "pg-one", "--store", store, "and then?"]), "resume"), `${SECOND}\n`);
    assert.equal(server.psql("SELECT last_seq FROM cli.runs WHERE run_id = 'pg-one'").trim(), String(exported.split("\n").length - 1 + 3));
  });

  it("moves a session from files to Postgres and back, the journal byte for byte the same", async () => {
    const dir = join(ROOT, "files");
    const back = join(ROOT, "back");
    ok(await cli(["run", "--checkpoint", "--name", "travels", "--state-dir", dir, "hello"]), "run in files");
    const original = readFileSync(join(dir, "travels.json"), "utf8");
    ok(await cli(["session", "mv", "travels", "--to", store, "--state-dir", dir]), "mv to postgres");
    const inPostgres = ok(await cli(["session", "export", "travels", "--store", store]), "export from postgres");
    assert.ok(original.startsWith(inPostgres) && inPostgres.length > 0, "Postgres holds the file's journal, its moved mark aside");
    ok(await cli(["session", "mv", "travels", "--to", back, "--store", store]), "mv back to files");
    assert.equal(readFileSync(join(back, "travels.json"), "utf8"), inPostgres, "the journal back in files is the one Postgres held");
    assert.equal(ok(await cli(["run", "--resume", "travels", "--state-dir", back, "and then?"]), "resume in files"), `${SECOND}\n`);
  });

  it("submits a run to the Postgres queue, lists it and withdraws it", async () => {
    ok(await cli(["submit", "--name", "queued-pg", "--store", store, "hello"]), "submit");
    const queued = JSON.parse(ok(await cli(["queue", "ls", "--json", "--store", store]), "queue ls")) as { runId: string; state: string }[];
    assert.deepEqual(
      queued.map((entry) => [entry.runId, entry.state]),
      [["queued-pg", "queued"]],
    );
    assert.equal(ok(await cli(["queue", "rm", "queued-pg", "--store", store]), "queue rm"), "withdrew queued-pg; it never ran, so its session is removed\n");
    assert.equal(server.psql("SELECT count(*) FROM cli.queue").trim(), "0");
    assert.equal(server.psql("SELECT count(*) FROM cli.runs WHERE run_id = 'queued-pg'").trim(), "0");
  });

  it("keeps a run's memory notes beside its sessions in Postgres; memory ls, show and rm reach them there, by --store or the config's session block", async () => {
    const dir = join(ROOT, "remembers");
    mkdirSync(dir);
    writeFileSync(join(dir, "agent.yaml"), `provider: script\nscript: notes.yaml\nmemory: { enabled: true, namespace: shop }\nsession: { url: "${store}" }\n`);
    writeFileSync(
      join(dir, "notes.yaml"),
      'turns:\n  - tool_calls: [{ name: memory_write, input: { key: list, description: the shopping list, content: "milk\\n" } }]\n  - text: noted\n',
    );
    const inDir = (args: string[]) => fisk(args, { cwd: dir, env: ENV });
    assert.equal(ok(await inDir(["run", "--checkpoint", "remember milk"]), "run"), "noted\n");
    assert.equal(server.psql("SELECT description FROM cli.notes WHERE namespace = 'shop' AND key = 'list'").trim(), "the shopping list");
    assert.equal(existsSync(join(ROOT, "xdg", "fisk-ai", "memory", "shop")), false, "no note went to files");
    assert.equal(ok(await cli(["memory", "ls", "--namespace", "shop", "--store", store]), "memory ls --store"), "- list: the shopping list\n");
    assert.equal(ok(await inDir(["memory", "show", "list"]), "memory show by the config"), "milk\n");
    ok(await cli(["memory", "rm", "list", "--namespace", "shop", "--store", store]), "memory rm --store");
    assert.equal(server.psql("SELECT count(*) FROM cli.notes").trim(), "0");
    const gone = await inDir(["memory", "show", "list"]);
    assert.equal(gone.code, 6, gone.stderr);
    assert.equal(gone.stderr, "fisk-ai: no note list in namespace shop; 'fisk-ai memory ls' lists them\n");
  });

  it("store init makes the tables once; a second run finds them", async () => {
    const url = `${server.url}?schema=made_ahead`;
    assert.equal(
      ok(await cli(["store", "init", url]), "init"),
      `fisk-ai's tables in postgres://postgres@127.0.0.1:${server.port}/postgres schema made_ahead made at schema version 3\n`,
    );
    assert.match(ok(await cli(["store", "init", url]), "init again"), /were at schema version 3\n$/);
  });

  it("refuses a schema made by a newer fisk-ai, saying so, and writes nothing", async () => {
    const url = `${server.url}?schema=from_the_future`;
    ok(await cli(["store", "init", url]), "init");
    server.psql("UPDATE from_the_future.schema_version SET version = 99");
    const listed = await cli(["session", "ls", "--store", url]);
    assert.notEqual(listed.code, 0);
    assert.equal(listed.stdout, "");
    assert.match(
      listed.stderr,
      /^fisk-ai: .*schema from_the_future holds fisk-ai's tables at schema version 99, made by a newer fisk-ai; this one reads version 3: upgrade fisk-ai\n$/,
    );
    assert.equal(server.psql("SELECT version FROM from_the_future.schema_version").trim(), "99");
  });

  it("says in one line what is wrong with a bad URL or an unreachable server, never the password", async () => {
    const badSchema = await cli(["session", "ls", "--store", `${server.url}?schema=Not-A-Name`]);
    assert.equal(badSchema.code, 2, badSchema.stderr);
    assert.match(badSchema.stderr, /^fisk-ai: store ".*": expected postgres:\/\/USER@HOST:PORT\/DATABASE\?schema=NAME/);
    const closed = await freePort();
    const unreachable = await cli(["session", "ls", "--store", `postgres://someone:s3cret-pw@127.0.0.1:${closed}/db`]);
    assert.notEqual(unreachable.code, 0);
    assert.equal(unreachable.stderr.trimEnd().split("\n").length, 1, unreachable.stderr);
    assert.match(unreachable.stderr, new RegExp(`^fisk-ai: connecting on postgres://\\*\\*\\*@127.0.0.1:${closed}/db schema fisk_ai failed: .*ECONNREFUSED`));
    assert.doesNotMatch(unreachable.stderr + unreachable.stdout, /s3cret-pw|someone/);
    const notPostgres = await cli(["store", "init", join(ROOT, "files")]);
    assert.equal(notPostgres.code, 2);
    assert.match(notPostgres.stderr, /store init makes the tables of a Postgres store/);
  });
});
