// What a command tool's input must be before its command runs: valid against the tool's
// input_schema (a JSON Schema, checked by ajv), and no value that would make itself an
// option of the program (an argument starting with '-') unless the tool says it may be.
// The model chooses the input: it is untrusted, as a request from a stranger is.
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";

/** Loaded by the first command tool whose schema constrains its input: a run without one does not pay for ajv. */
async function ajv(): Promise<Ajv2020> {
  return (await import("./input-validator.js")).inputValidator;
}

/** A tool's input check, compiled once: undefined for a valid input, else what is wrong, naming the field. */
export type InputCheck = (input: Record<string, unknown>) => string | undefined;

/** Rejects, saying why, when `schema` is not a JSON Schema (draft 2020-12) ajv can compile. */
export async function compileInputCheck(schema: Record<string, unknown>): Promise<InputCheck> {
  // Such as `{type: object, properties: {}}` (the init agent's tool): nothing for a validator to do.
  if (constrainsNothing(schema)) return (input) => (isObject(input) ? undefined : "the input must be object");
  const validate: ValidateFunction = (await ajv()).compile(schema);
  return (input) => (validate(input) ? undefined : describe((validate.errors ?? [])[0]));
}

const NOTES = new Set(["description", "title", "$schema", "$comment"]);

/** True for a schema that asks only that the input be an object: the model APIs' inputs always are. */
function constrainsNothing(schema: Record<string, unknown>): boolean {
  return Object.entries(schema).every(
    ([key, value]) => NOTES.has(key) || (key === "type" && value === "object") || (key === "properties" && isObject(value) && Object.keys(value).length === 0),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(error: ErrorObject | undefined): string {
  if (error === undefined) return "the input does not match the tool's input_schema";
  const field = fieldName(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${joined(error.instancePath, String(params.missingProperty))} is required`;
    case "additionalProperties":
      return `${joined(error.instancePath, String(params.additionalProperty))} is not a field this tool takes`;
    case "enum":
      return `${field} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`;
    default:
      return `${field} ${error.message ?? "does not match the tool's input_schema"}`;
  }
}

/** `/a/0/b` as `a.0.b`; the whole input as "the input". */
function fieldName(instancePath: string): string {
  return instancePath === "" ? "the input" : pathParts(instancePath).join(".");
}

function joined(instancePath: string, child: string): string {
  return [...pathParts(instancePath), child].join(".");
}

function pathParts(instancePath: string): string[] {
  return instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** `{field}` in an argument of a command tool: replaced by that input field's value. */
export const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The field whose value starts an argument with '-' where the template did not: such an
 * argument would be read as an option (`sort -o FILE`). Arguments after a literal `--`
 * are operands, and the fields in `allowed` may start with '-'.
 */
export function optionLikeField(template: readonly string[], argv: readonly string[], allowed: readonly string[]): string | undefined {
  const operands = template.indexOf("--");
  const options = operands === -1 ? template.length : operands;
  for (let index = 0; index < options; index++) {
    const argument = template[index] as string;
    if (argument.startsWith("-") || !(argv[index] ?? "").startsWith("-")) continue;
    const field = [...argument.matchAll(PLACEHOLDER)][0]?.[1];
    if (field !== undefined && !allowed.includes(field)) return field;
  }
  return undefined;
}

/** The `{field}` names an argv template uses. */
export function templateFields(template: readonly string[]): string[] {
  return template.flatMap((argument) => [...argument.matchAll(PLACEHOLDER)].map((match) => match[1] as string));
}
