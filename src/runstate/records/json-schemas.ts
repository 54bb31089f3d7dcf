// The JSON Schema (draft 2020-12) of each record kind and of the shared envelope,
// generated from the zod schemas the code validates with, so the two cannot drift
// apart unnoticed: a test checks the shipped files against this and both validators
// against one corpus of records.
import * as z from "zod";
import { ENVELOPE_SCHEMA, storedRecordSchemas } from "./record-schemas.js";
import { NEWEST_READABLE_VERSION, RECORD_KINDS } from "./records.js";

const ID_BASE = "https://choria.io/schemas/io.choria.fisk-ai.v1";

export interface NamedSchema {
  fileName: string;
  schema: Record<string, unknown>;
}

function named(fileName: string, title: string, schema: z.ZodType): NamedSchema {
  const generated = z.toJSONSchema(schema, { target: "draft-2020-12" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { fileName, schema: { $schema, $id: `${ID_BASE}/${fileName}`, title, ...rest } };
}

/** The records as stored, in every version read: version 3's blocks beside those of versions 1 and 2. */
export function recordJsonSchemas(): NamedSchema[] {
  const versions = `record versions 1 to ${NEWEST_READABLE_VERSION}`;
  const schemas = storedRecordSchemas();
  return [
    named("session.envelope.json", `fisk-ai session record envelope (${versions})`, ENVELOPE_SCHEMA),
    ...RECORD_KINDS.map((kind) => named(`session.${kind}.json`, `fisk-ai session ${kind} record (${versions})`, schemas[kind])),
  ];
}

export function serializeSchema(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
