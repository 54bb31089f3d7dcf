// A server's question during a call (elicitation, form mode): put to whoever can answer it
// (the terminal, the configuration) through one function, or declined when no one can.
// The SDK fills in the schema's defaults for the fields an accepted answer leaves out.
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** One field of a question's form, as the server describes it. */
export interface McpQuestionField {
  /** `string`, `number`, `integer` or `boolean`. */
  type?: string;
  /** A short name to show in place of the field's. */
  title?: string;
  /** What the server wants to know. */
  description?: string;
  /** The value an answer that leaves the field out gets. */
  default?: unknown;
  /** The only values allowed, for a choice. */
  enum?: readonly string[];
}

/** A server's question: its message and the form's fields, by name. */
export interface McpQuestion {
  /** The server's name in the configuration. */
  server: string;
  /** The question, in the server's words. */
  message: string;
  /** The form to fill in. */
  fields: Record<string, McpQuestionField>;
  /** The fields an accepted answer must give (or have a default for). */
  required: readonly string[];
}

/** The answer: the values given (the SDK adds the defaults of those left out), or no answer. */
export type McpAnswer =
  | {
      /** Answered. */
      action: "accept";
      /** The values given, by field name. */
      content: Record<string, string | number | boolean | string[]>;
    }
  | {
      /** Refused (`decline`), or dismissed without a choice (`cancel`). */
      action: "decline" | "cancel";
    };

/** Answers a server's question; see answerFromValues for answers given in advance. */
export type McpElicit = (question: McpQuestion) => Promise<McpAnswer>;

export async function answerElicitation(server: string, params: ElicitRequest["params"], elicit: McpElicit | undefined): Promise<ElicitResult> {
  // A URL question (open this page) is not asked: the client declares form questions only.
  if (elicit === undefined || params.mode === "url" || !("requestedSchema" in params)) return { action: "decline" };
  const schema = params.requestedSchema;
  return elicit({ server, message: params.message, fields: schema.properties as Record<string, McpQuestionField>, required: schema.required ?? [] });
}

/**
 * Answers every question with `values` (by field name) and the schema's defaults; a
 * question that requires a field neither gives is declined.
 */
export function answerFromValues(values: Readonly<Record<string, string | number | boolean>>): McpElicit {
  return async ({ fields, required }) => {
    if (required.some((name) => values[name] === undefined && fields[name]?.default === undefined)) return { action: "decline" };
    const content = Object.fromEntries(Object.entries(values).filter(([name]) => fields[name] !== undefined));
    return { action: "accept", content };
  };
}
