// covers: src/cli/init/init.ts
// process: shared
// `fisk-ai init [DIR]` through the real CLI: the agent.yaml it writes passes agent.yaml's
// JSON Schema (which it names for editors) and the loader, runs offline as its comment says,
// and an existing file is never overwritten (one line, exit 9).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "init", "memory"]);

function home(t: TestContext): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), "fisk-init-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, env: { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" } };
}

describe("fisk-ai init", () => {
  it("writes a commented agent.yaml that names its schema, passes it, and runs offline as its comment says", async (t) => {
    const { dir, env } = home(t);
    const init = await cli(["init", "agent"], { cwd: dir, env });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(
      init.stdout,
      'wrote agent/agent.yaml and agent.script.yaml; try it offline with: fisk-ai run --config agent/agent.yaml --checkpoint "Say hello"\n',
    );
    const text = readFileSync(join(dir, "agent", "agent.yaml"), "utf8");
    const schemaPath = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text.split("\n")[0] ?? "")?.[1] ?? assert.fail(text);
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(schemaPath, "utf8")) as object);
    assert.ok(validate(parseYaml(text)), JSON.stringify(validate.errors));
    assert.match(text, /docs\/agent-yaml\.md/);
    assert.match(text, /^# {3}fisk-ai run --config agent\.yaml --checkpoint "Say hello"$/m, "the command its comment gives");
    const run = await cli(["run", "--config", "agent.yaml", "--checkpoint", "Say hello"], { cwd: join(dir, "agent"), env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Hello! I looked at today's date with the today tool.\n");
    assert.match(run.stderr, /← today: \d{4}-\d{2}-\d{2}/, "the tool ran");
  });

  it("refuses to overwrite agent.yaml or its script: one line, exit 9, nothing changed or left behind", async (t) => {
    const { dir, env } = home(t);
    assert.equal((await cli(["init"], { cwd: dir, env })).code, 0);
    const before = readFileSync(join(dir, "agent.yaml"), "utf8");
    const again = await cli(["init"], { cwd: dir, env });
    assert.deepEqual([again.code, again.stdout], [9, ""]);
    assert.equal(again.stderr, "fisk-ai: agent.script.yaml already exists: init writes only new files (move it aside, or init another directory)\n");
    assert.equal(readFileSync(join(dir, "agent.yaml"), "utf8"), before);

    rmSync(join(dir, "agent.script.yaml"));
    writeFileSync(join(dir, "agent.yaml"), "model: mine\n");
    const ownFile = await cli(["init", "."], { cwd: dir, env });
    assert.deepEqual(
      [ownFile.code, ownFile.stderr],
      [9, "fisk-ai: agent.yaml already exists: init writes only new files (move it aside, or init another directory)\n"],
    );
    assert.equal(readFileSync(join(dir, "agent.yaml"), "utf8"), "model: mine\n", "the user's file untouched");
    assert.equal(existsSync(join(dir, "agent.script.yaml")), false, "no half of a new agent left behind");

    const twoDirs = await cli(["init", "a", "b"], { cwd: dir, env });
    assert.deepEqual([twoDirs.code, twoDirs.stderr], [2, "fisk-ai: init takes at most one directory: fisk-ai init [DIR]\n"]);
  });
});
