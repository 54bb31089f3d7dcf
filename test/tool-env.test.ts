// covers: src/tools/tool-env.ts
// process: shared
// Tools never see our credentials: the provider keys, the NATS credentials and env_deny
// names are withheld from every tool process unless its own `env` names them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CREDENTIAL_VARIABLES, toolEnvironment } from "../src/tools/tool-env.js";
import { runWithMarkedSecrets } from "./helpers/environment-marks.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-tool-env-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("tool environment", () => {
  it("withholds every credential variable and env_deny name, and passes back only what a tool names", () => {
    const base: NodeJS.ProcessEnv = { PATH: "/bin", HOME: "/h", SITE_TOKEN: "s", KEPT: "k" };
    for (const name of CREDENTIAL_VARIABLES) base[name] = `secret-${name}`;
    assert.deepEqual(toolEnvironment(base, ["SITE_TOKEN"], []), { PATH: "/bin", HOME: "/h", KEPT: "k" });
    assert.deepEqual(toolEnvironment(base, ["SITE_TOKEN"], ["SITE_TOKEN", "OPENAI_API_KEY", "UNSET"]), {
      PATH: "/bin",
      HOME: "/h",
      KEPT: "k",
      SITE_TOKEN: "s",
      OPENAI_API_KEY: "secret-OPENAI_API_KEY",
    });
  });

  it("a tool that prints its whole environment puts no key into the journal, except the one it names", async () => {
    const dir = mkdtempSync(join(root, "run-"));
    writeFileSync(
      join(dir, "agent.yaml"),
      [
        "provider: script",
        "script: ./s.yaml",
        "env_deny: [SITE_TOKEN]",
        "tools:",
        "  - { name: printenv, description: Print the environment, command: [env] }",
        "  - { name: printenv_gh, description: Print the environment, command: [env], env: [GH_TOKEN_FOR_TOOL] }",
      ].join("\n"),
    );
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: printenv }, { name: printenv_gh }]\n  - text: done\n");
    const secrets: Record<string, string> = { SITE_TOKEN: "MARK-site", GH_TOKEN_FOR_TOOL: "MARK-gh" };
    for (const name of CREDENTIAL_VARIABLES) secrets[name] = `MARK-${name}`;
    const { result, journal, marks } = await runWithMarkedSecrets(dir, secrets);
    assert.equal(result.code, 0, result.stderr);
    assert.match(journal, /VISIBLE_SETTING=seen/, "the tools ran and printed their environment");
    assert.deepEqual(marks, ["MARK-gh"], "only the variable printenv_gh names reaches a tool");
  });
});
