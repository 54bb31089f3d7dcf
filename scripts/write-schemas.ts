// Regenerates schemas/ from the code's record schemas and agent.yaml's: `npm run schemas`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_SCHEMA_FILE, agentConfigJsonSchema } from "../src/config/agent-json-schema.js";
import { recordJsonSchemas, serializeSchema } from "../src/runstate/records/json-schemas.js";

const outDir = process.argv[2] ?? "schemas";
for (const { fileName, schema } of [...recordJsonSchemas(), { fileName: AGENT_SCHEMA_FILE, schema: agentConfigJsonSchema() }]) {
  writeFileSync(join(outDir, fileName), serializeSchema(schema));
  console.log(`wrote ${join(outDir, fileName)}`);
}
