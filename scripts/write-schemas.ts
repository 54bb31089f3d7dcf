// Regenerates schemas/ from the code's record schemas: `npm run schemas`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordJsonSchemas, serializeSchema } from "../src/runstate/json-schemas.js";

const outDir = process.argv[2] ?? "schemas";
for (const { fileName, schema } of recordJsonSchemas()) {
  writeFileSync(join(outDir, fileName), serializeSchema(schema));
  console.log(`wrote ${join(outDir, fileName)}`);
}
