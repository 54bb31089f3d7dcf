// covers: src/config/agent-config.ts, src/config/agent-json-schema.ts, src/runstate/records/json-schemas.ts
// tier: quick
// process: shared
// agent.yaml's JSON Schema: shipped exactly as the loader's zod schema generates it (so the
// two cannot drift), and agreeing with the loader on the examples and on a mistyped key.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { AGENT_SCHEMA_FILE, agentConfigJsonSchema } from "../src/config/agent-json-schema.js";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { serializeSchema } from "../src/runstate/records/json-schemas.js";

const REPO = new URL("../../", import.meta.url);
const SHIPPED = new URL(`schemas/${AGENT_SCHEMA_FILE}`, REPO);
const EXAMPLES = readdirSync(new URL("examples/", REPO), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && readdirSync(new URL(`examples/${entry.name}/`, REPO)).includes("agent.yaml"))
  .map((entry) => new URL(`examples/${entry.name}/agent.yaml`, REPO));

function validator() {
  return new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(SHIPPED, "utf8")) as object);
}

describe("agent.yaml's JSON Schema", () => {
  it("ships schemas/agent.schema.json exactly as the config loader's schema generates it (npm run schemas)", () => {
    assert.equal(readFileSync(SHIPPED, "utf8"), serializeSchema(agentConfigJsonSchema()), `${AGENT_SCHEMA_FILE} is stale: run npm run schemas`);
  });

  it("every example's agent.yaml names it for editors and passes it, as it passes the loader", () => {
    assert.ok(EXAMPLES.length >= 2, "the examples were found");
    const validate = validator();
    for (const file of EXAMPLES) {
      const text = readFileSync(file, "utf8");
      assert.equal(text.split("\n")[0], `# yaml-language-server: $schema=../../schemas/${AGENT_SCHEMA_FILE}`, file.pathname);
      assert.ok(validate(parseYaml(text)), `${file.pathname}: ${JSON.stringify(validate.errors)}`);
      loadAgentConfig(file.pathname);
    }
  });

  it("refuses what the loader refuses: a mistyped key, a wrong type, an unknown provider", () => {
    const validate = validator();
    for (const bad of [
      { modle: "x" },
      { budget: { max_tokens: "many" } },
      { provider: "gemini" },
      { tools: [{ name: "t", description: "d", command: [], confirm: "yes" }] },
    ]) {
      assert.equal(validate(bad), false, JSON.stringify(bad));
    }
    assert.ok(validate({ provider: "anthropic", budget: { call_timeout: "2m" }, session: { retention: { keep_last: 3 } } }), JSON.stringify(validate.errors));
  });
});
