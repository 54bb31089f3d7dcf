// The JSON Schema validator command tools check their input with, in a module of its own
// so that tool-input.ts loads it (and ajv) only when a command tool is made.
import { Ajv2020 } from "ajv/dist/2020.js";

// Formats are not checked (no ajv-formats): a schema's `format` is a hint to the model only.
// Schemas with an $id are not kept, so two tools may reuse one.
export const inputValidator = new Ajv2020({ strict: false, validateFormats: false, addUsedSchema: false });
