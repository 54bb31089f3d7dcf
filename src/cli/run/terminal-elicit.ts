// A server's question during a call, asked on the terminal: the message, then each field
// with its default in brackets (an empty line keeps the default, which the SDK fills in).
import type { McpAnswer, McpElicit, McpQuestionField } from "../../tools/mcp/mcp-elicitation.js";
import { terminalLine } from "./terminal-confirm.js";

export function terminalElicit(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): McpElicit | undefined {
  const ask = terminalLine(stdin, stderr);
  if (ask === undefined) return undefined;
  return async ({ server, message, fields, required }) => {
    const answer = await ask(`MCP server ${server} asks: ${message}\nAnswer? [Y/n] `);
    if (answer === undefined) return { action: "cancel" };
    if (/^n(o)?$/i.test(answer)) return { action: "decline" };
    const content: Extract<McpAnswer, { action: "accept" }>["content"] = {};
    for (const [name, field] of Object.entries(fields)) {
      for (;;) {
        const typed = await ask(`  ${field.title ?? name}${field.description === undefined ? "" : ` (${field.description})`}${choices(field)}: `);
        if (typed === undefined) return { action: "cancel" };
        if (typed === "" && (field.default !== undefined || !required.includes(name))) break;
        const value = fieldValue(field, typed);
        if (value !== undefined) {
          content[name] = value;
          break;
        }
        stderr.write(`  expected ${expected(field)}\n`);
      }
    }
    return { action: "accept", content };
  };
}

function choices(field: McpQuestionField): string {
  const options = field.enum === undefined ? "" : ` {${field.enum.join(", ")}}`;
  return field.default === undefined ? options : `${options} [${String(field.default)}]`;
}

/** What the typed line means for the field's type; undefined when it is not a value of it. */
function fieldValue(field: McpQuestionField, typed: string): string | number | boolean | undefined {
  if (field.enum !== undefined) return field.enum.includes(typed) ? typed : undefined;
  switch (field.type) {
    case "integer":
    case "number": {
      const number = Number(typed);
      return typed !== "" && Number.isFinite(number) && (field.type === "number" || Number.isInteger(number)) ? number : undefined;
    }
    case "boolean":
      return /^y(es)?$|^true$/i.test(typed) ? true : /^n(o)?$|^false$/i.test(typed) ? false : undefined;
    default:
      return typed === "" ? undefined : typed;
  }
}

function expected(field: McpQuestionField): string {
  if (field.enum !== undefined) return `one of ${field.enum.join(", ")}`;
  return field.type === "integer" ? "a whole number" : field.type === "number" ? "a number" : field.type === "boolean" ? "yes or no" : "an answer";
}
