// agent.yaml: one file for provider, model, system prompt, tools, budgets, thinking and
// the session backend, validated at start with errors that name the field. Credentials
// never live here: they come from the environment only.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse as parseYaml, YAMLParseError } from "yaml";
import * as z from "zod";
import type { ProviderName, ThinkingConfig } from "../llm/model-provider.js";
import type { StoreConfig } from "../backends/store-config.js";
import { parseStoreUrl } from "../backends/store-url.js";
import { BackendError } from "../backends/backend-errors.js";
import { RECORD_VERSION } from "../runstate/records/records.js";
import { MAX_LINE_BYTES, mebibytes } from "../runstate/records/journal-codec.js";
import { keyProblem } from "../memory/note-store.js";
import { CRASH_POLICIES } from "../tools/tool.js";
import { templateFields } from "../tools/tool-input.js";
import { ConfigError } from "../agent/agent-errors.js";
import { compactionSettingsFor, type CompactionOptions, type CompactionSettings } from "../agent/compaction.js";
import { keysAt, nearest } from "./config-hints.js";
import { AGENT_DEFAULTS } from "../agent/defaults.js";
import { AGE_FORM, ageMs } from "./age.js";
import type { PriceTable } from "../ledger/prices.js";
import { PRUNABLE_STATUSES } from "../runstate/store/store.js";

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A duration as `30s`, `500ms`, `2m`, `1h`, or a number of seconds; in milliseconds. */
const Duration = z.union(
  [
    z
      .number()
      .positive()
      .transform((seconds) => seconds * 1000),
    z
      .string()
      .regex(DURATION)
      .transform((text) => {
        const [, amount, unit] = DURATION.exec(text) as unknown as [string, string, keyof typeof UNIT_MS];
        return Number(amount) * UNIT_MS[unit];
      }),
  ],
  { error: "expected a duration such as 30s, 500ms or 2m, or a number of seconds" },
);

const CrashPolicy = z.enum(CRASH_POLICIES);

/** US dollars per million tokens. */
const Dollars = z.number().min(0, "expected US dollars per million tokens, 0 or more");
const ModelPrice = z.strictObject({ input: Dollars, output: Dollars, cache_read: Dollars, cache_write: Dollars });

const Age = z.string().refine((text) => ageMs(text) !== undefined, `expected an age: ${AGE_FORM}`);

/** What `session prune` removes when run without filters; nothing is removed but by that command. */
const Retention = z.strictObject({
  older_than: Age.optional(),
  status: z.array(z.enum(PRUNABLE_STATUSES)).min(1).optional(),
  keep_last: z.int().min(0).optional(),
});

// A tool's result is journaled in one line: what it keeps must fit one, escaped as JSON.
const MAX_OUTPUT_LIMIT = MAX_LINE_BYTES / 4;
const OutputLimit = z
  .int()
  .positive()
  .max(
    MAX_OUTPUT_LIMIT,
    `expected at most ${MAX_OUTPUT_LIMIT} bytes (${mebibytes(MAX_OUTPUT_LIMIT)}): a result is journaled in one line of at most ${mebibytes(MAX_LINE_BYTES)}`,
  );

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name");

// A command tool (`command:`) or another agent (`agent:`, the path of its agent.yaml): one
// shape with a check of which is given, so a mistake is named rather than "invalid input".
const ToolConfig = z
  .strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "expected 1 to 64 letters, digits, '_' or '-'"),
    description: z.string().min(1),
    command: z.array(z.string()).min(1, "expected the program and its arguments").optional(),
    /** A child agent: the path of its agent.yaml, relative to this file (docs/sub-agents.md). */
    agent: z.string().min(1).optional(),
    input_schema: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    timeout: Duration.default(30_000),
    output_limit: OutputLimit.default(64 * 1024),
    confirm: z.boolean().default(false),
    on_crash: CrashPolicy.default("rerun"),
    /** Withheld variables this tool gets anyway, by name. */
    env: z.array(EnvName).default([]),
    /** Input fields whose value may start an argument with '-' (an option the model chooses); default none. */
    allow_leading_dash: z.array(z.string()).default([]),
  })
  .superRefine((tool, context) => {
    const fields = templateFields(tool.command ?? []);
    const stray = tool.allow_leading_dash.find((field) => !fields.includes(field));
    if (stray !== undefined) context.addIssue({ code: "custom", path: ["allow_leading_dash"], message: `${stray} is no field of its command` });
    if ((tool.command === undefined) === (tool.agent === undefined)) {
      context.addIssue({
        code: "custom",
        message:
          tool.command === undefined
            ? "expected command: (the program and its arguments) or agent: (the path of a child agent's agent.yaml)"
            : "give command: or agent:, not both",
      });
    }
  });

/**
 * How to sign in to an HTTP MCP server that asks (OAuth). Without a client of its own a
 * person signs in through the browser and the client registers itself.
 */
const McpAuthConfig = z
  .strictObject({
    /** `authorization_code`: a person signs in; `client_credentials`: a program, with no person. */
    grant: z.enum(["authorization_code", "client_credentials"]).default("authorization_code"),
    /** A client registered with the authorization server beforehand. */
    client_id: z.string().min(1).optional(),
    /** The variable that holds the client's secret, so it stays out of the file. */
    client_secret_env: EnvName.optional(),
    /** A PEM private key the client signs a JWT with instead of a secret (private_key_jwt). */
    private_key_file: z.string().min(1).optional(),
    /** The JWT's signing algorithm. */
    algorithm: z.string().min(1).default("RS256"),
    /** An https URL of this client's metadata document, its id where the server supports that. */
    client_metadata_url: z.url({ protocol: /^https$/, error: "expected an https:// URL" }).optional(),
    /** Asked for when neither the server's challenge nor its metadata names scopes. */
    scope: z.string().min(1).optional(),
    /** The loopback port the browser comes back to; default a free one, kept with the registered client. */
    callback_port: z.int().min(1).max(65535).optional(),
  })
  .superRefine((auth, context) => {
    const problem = (message: string) => context.addIssue({ code: "custom", message });
    if (auth.grant === "client_credentials") {
      if (auth.client_id === undefined) problem("grant: client_credentials needs client_id:");
      else if ((auth.client_secret_env === undefined) === (auth.private_key_file === undefined))
        problem("grant: client_credentials needs either client_secret_env: or private_key_file:");
    } else if (auth.private_key_file !== undefined) {
      problem("private_key_file goes with grant: client_credentials");
    } else if (auth.client_secret_env !== undefined && auth.client_id === undefined) {
      problem("client_secret_env goes with client_id:");
    }
  });

/** Answers to a server's questions (elicitation) where no terminal can ask them: by field name, over the question's defaults. */
const McpElicitationConfig = z.strictObject({
  answers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});

/**
 * An MCP server: a command to start (stdio) or a URL (streamable HTTP). One shape with a
 * check of which fields go together, so a mistake is named rather than "invalid input".
 */
const McpServerConfig = z
  .strictObject({
    name: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, "expected 1 to 32 letters, digits or '-' (its tools are named <server>__<tool>)"),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Withheld variables the server gets anyway, by name, as for command tools. */
    env: z.array(EnvName).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" }).optional(),
    /** Sent with every request; `${NAME}` takes a value from the environment, so a token stays out of the file. */
    headers: z.record(z.string(), z.string()).optional(),
    /** `true` for every tool of the server, or the names (as the server gives them) of the tools to confirm. */
    confirm: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
    /** One policy for every tool, or a policy per tool name; tools not named rerun. */
    on_crash: z.union([CrashPolicy, z.record(z.string(), CrashPolicy)]).default("rerun"),
    timeout: Duration.default(AGENT_DEFAULTS.mcpCallTimeoutMs),
    /** Bytes of a call's result kept (text, and images' base64); the rest is cut off with a marker. */
    output_limit: OutputLimit.default(AGENT_DEFAULTS.mcpOutputLimitBytes),
    auth: McpAuthConfig.optional(),
    elicitation: McpElicitationConfig.optional(),
  })
  .superRefine((server, context) => {
    const problem = (message: string) => context.addIssue({ code: "custom", message });
    if ((server.command === undefined) === (server.url === undefined)) {
      problem("give either command: (a server started over stdio) or url: (a streamable HTTP server)");
    } else if (server.url !== undefined && (server.args ?? server.env ?? server.cwd) !== undefined) {
      problem("args, env and cwd go with command:, not with url:");
    } else if (server.command !== undefined && (server.headers ?? server.auth) !== undefined) {
      problem("headers and auth go with url:, not with command:");
    }
  });

const Thinking = z.discriminatedUnion("mode", [
  z.strictObject({ mode: z.literal("off") }),
  z.strictObject({ mode: z.literal("enabled"), budget_tokens: z.int().min(1024) }),
  z.strictObject({ mode: z.literal("adaptive") }),
]);

export const AgentConfigSchema = z.strictObject({
  provider: z.enum(["anthropic", "openai", "script"]).default("anthropic"),
  model: z.string().min(1).default("claude-sonnet-4-5"),
  base_url: z.url().optional(),
  script: z.string().min(1).optional(),
  system: z.string().default(AGENT_DEFAULTS.system),
  tools: z.array(ToolConfig).default([]),
  mcp_servers: z
    .array(McpServerConfig)
    .default([])
    .refine((servers) => new Set(servers.map((server) => server.name)).size === servers.length, "two servers have the same name: names must be unique"),
  parallel_tools: z.boolean().default(false),
  /** The deepest a child session of this agent's `agent:` tools may be: a child is 1 deep, its child 2. */
  max_depth: z.int().min(1).default(AGENT_DEFAULTS.maxDepth),
  /** The built-in ask_user tool: the model may ask the operator a question. */
  ask_user: z.boolean().default(false),
  /** A parked call undecided this long is denied ("timed out") at the next resume. */
  approval_timeout: Duration.optional(),
  env_deny: z.array(EnvName).default([]),
  max_output_tokens: z.int().positive().default(AGENT_DEFAULTS.maxOutputTokens),
  budget: z
    .strictObject({
      max_tokens: z.int().positive().default(AGENT_DEFAULTS.maxTokens),
      max_iterations: z.int().positive().default(AGENT_DEFAULTS.maxIterations),
      call_timeout: Duration.default(AGENT_DEFAULTS.callTimeoutMs),
    })
    .prefault({}),
  retry: z
    .strictObject({
      max_attempts: z.int().min(1).max(20).default(AGENT_DEFAULTS.retryAttempts),
      base_delay: Duration.default(AGENT_DEFAULTS.retryBaseDelayMs),
    })
    .prefault({}),
  thinking: Thinking.default({ mode: "off" }),
  compaction: z
    .strictObject({
      auto: z.boolean().optional(),
      threshold: z
        .number()
        .gt(0, "expected a share of the window above 0 and at most 1, such as 0.8")
        .max(1, "expected a share of the window above 0 and at most 1, such as 0.8")
        .optional(),
      window: z.int().positive("expected the model's context window in tokens").optional(),
      keep_recent: z.int().min(1, "expected a whole number of messages, at least 1").optional(),
    })
    .optional(),
  memory: z
    .strictObject({
      enabled: z.boolean().default(false),
      namespace: z
        .string()
        .refine((name) => keyProblem(name) === undefined, "expected letters, digits and . _ = -, no leading or trailing dot")
        .default("default"),
    })
    .prefault({}),
  session: z
    .strictObject({
      backend: z.enum(["file", "jetstream"]).default("file"),
      // The record version new sessions are journaled in: 3 is the Go implementation's current one.
      record_version: z
        .union([z.literal(2), z.literal(3)], { error: "expected 2 (the default) or 3 (the Go implementation's current journal format)" })
        .default(RECORD_VERSION),
      state_dir: z.string().min(1).optional(),
      // The store by URL, read by the store parser as --store is: any registered backend's (nats://..., a program's own scheme).
      url: z.string().min(1).optional(),
      // jetstream only. Credentials never come from here: NATS_CREDS, NATS_USER/NATS_PASSWORD or NATS_TOKEN.
      servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
      stream: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/, "a stream name is letters, digits, '_' and '-'")
        .optional(),
      lease_ttl: Duration.optional(),
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, "a prefix is dot-separated tokens of letters, digits, '_' and '-'")
        .optional(),
      retention: Retention.optional(),
    })
    .prefault({}),
  pricing: z.record(z.string().min(1), ModelPrice).default({}),
  telemetry: z
    .strictObject({
      // An OTLP/HTTP base address: it turns tracing on (docs/traces.md).
      endpoint: z.url({ protocol: /^https?$/, error: "expected the collector's OTLP/HTTP address, such as http://localhost:4318" }),
      service_name: z.string().min(1).optional(),
      // Header name to the name of the environment variable that holds its value: a backend's key never sits in the file.
      headers_env: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, "expected an HTTP header name"), EnvName).optional(),
      capture_content: z.boolean().optional(),
    })
    .optional(),
});

/** The defaults of `session prune` from agent.yaml's session.retention. */
export type Retention = z.output<typeof Retention>;

export type ToolConfig = z.output<typeof ToolConfig>;
export type McpServerConfig = z.output<typeof McpServerConfig>;

export interface AgentConfig {
  provider: ProviderName;
  model: string;
  baseUrl: string | undefined;
  /** Absolute path of the script file (provider script). */
  script: string | undefined;
  system: string;
  tools: ToolConfig[];
  /** With `cwd` and `auth.private_key_file` made absolute. */
  mcpServers: McpServerConfig[];
  parallelTools: boolean;
  /** The deepest a child session of the `agent:` tools may be (max_depth). */
  maxDepth: number;
  /** The model may ask the operator questions (the built-in ask_user tool). */
  askUser: boolean;
  /** In milliseconds: a parked call undecided this long is denied at the next resume. */
  approvalTimeoutMs: number | undefined;
  /** Variables the operator withholds from every tool (env_deny); secretVariables adds the others the file names. */
  envDeny: string[];
  maxOutputTokens: number;
  maxTokens: number;
  maxIterations: number;
  callTimeoutMs: number;
  retryAttempts: number;
  retryBaseDelayMs: number;
  thinking: ThinkingConfig;
  /** When the conversation is compacted; undefined: only by hand (a model whose window is not known, with no compaction block). */
  compaction: CompactionSettings | undefined;
  /** The namespace of the notes the model keeps across runs; undefined without memory. */
  memoryNamespace: string | undefined;
  /** Where sessions are kept: the session block, or the --state-dir / --store overrides. */
  store: StoreConfig;
  /** The record version new sessions are journaled in (session.record_version). */
  recordVersion: 2 | 3;
  /** Prices by model (pricing:), in place of or beside the shipped table's. */
  pricing: PriceTable;
  /** The defaults of `session prune` (session.retention), when set. */
  retention: Retention | undefined;
  /** Traces sent where the telemetry block says, when it is there. */
  telemetry: TelemetryConfig | undefined;
}

export interface TelemetryConfig {
  /** The collector's OTLP/HTTP base address. */
  endpoint: string;
  serviceName: string | undefined;
  /** Header name to the environment variable holding its value. */
  headersEnv: Record<string, string>;
  captureContent: boolean;
}

/** What the command line may override. */
export interface ConfigOverrides {
  /** In place of the file's `provider:` (anthropic, openai or script). */
  provider?: string | undefined;
  /** In place of the file's `model:`. */
  model?: string | undefined;
  /** A store named on the command line (--store or --state-dir), in place of the session block. */
  store?: StoreConfig | undefined;
}

/**
 * Reads and validates an agent.yaml (or, with no file, the defaults), then applies the
 * command-line overrides. Relative paths in the file are relative to the file.
 */
export function loadAgentConfig(path: string | undefined, overrides: ConfigOverrides = {}): AgentConfig {
  const label = path ?? "the default configuration";
  const raw = path === undefined ? {} : readYaml(path);
  const withOverrides = applyOverrides(raw, overrides, label);
  const parsed = AgentConfigSchema.safeParse(withOverrides);
  if (!parsed.success) throw new ConfigError(`${label}: ${describeIssue(parsed.error, withOverrides)}`);
  const config = parsed.data;
  const base = path === undefined ? process.cwd() : dirname(resolve(path));
  checkNeeds(config, overrides, label);
  return {
    provider: config.provider,
    model: config.model,
    baseUrl: config.base_url,
    script: config.script === undefined ? undefined : resolve(base, config.script),
    system: config.system,
    tools: config.tools.map((tool, index) =>
      tool.agent === undefined ? tool : { ...tool, agent: childConfigPath(tool.agent, base, `${label}: tools[${index}].agent`) },
    ),
    mcpServers: config.mcp_servers.map((server) => ({
      ...server,
      ...(server.cwd === undefined ? {} : { cwd: expandPath(server.cwd, base) }),
      ...(server.auth?.private_key_file === undefined ? {} : { auth: { ...server.auth, private_key_file: expandPath(server.auth.private_key_file, base) } }),
    })),
    parallelTools: config.parallel_tools,
    maxDepth: config.max_depth,
    askUser: config.ask_user,
    approvalTimeoutMs: config.approval_timeout,
    envDeny: config.env_deny,
    maxOutputTokens: config.max_output_tokens,
    maxTokens: config.budget.max_tokens,
    maxIterations: config.budget.max_iterations,
    callTimeoutMs: config.budget.call_timeout,
    retryAttempts: config.retry.max_attempts,
    retryBaseDelayMs: config.retry.base_delay,
    thinking: config.thinking,
    compaction: compactionSettingsFor(config.model, config.compaction === undefined ? undefined : compactionOptions(config.compaction), `${label}: compaction`),
    memoryNamespace: config.memory.enabled ? config.memory.namespace : undefined,
    recordVersion: config.session.record_version,
    pricing: config.pricing,
    retention: config.session.retention,
    telemetry: config.telemetry === undefined ? undefined : telemetryConfig(config.telemetry),
    store: overrides.store ?? storeConfig(config.session, base, label),
  };
}

/** The file's YAML, or a ConfigError naming the file (and the line) and what is wrong. */
function readYaml(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new ConfigError(`cannot read config ${path}: ${reason}`);
  }
  try {
    return parseYaml(text) ?? {};
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? `:${error.linePos[0].line}` : "";
    throw new ConfigError(`${path}${where}: not valid YAML: ${firstLine((error as Error).message)}`);
  }
}

type ParsedConfig = z.output<typeof AgentConfigSchema>;

/** What one field needs of another, which the schema alone does not say: the script provider a script, the jetstream backend its servers and stream. */
function checkNeeds(config: ParsedConfig, overrides: ConfigOverrides, label: string): void {
  if (config.provider === "script" && config.script === undefined) {
    throw new ConfigError(
      `${label}: script: the script provider plays the model's side from a script file: name it in agent.yaml (script: ./demo.script.yaml, as examples/notes/agent.yaml does) and give that file with --config`,
    );
  }
  const session = config.session;
  if (session.url !== undefined) {
    const beside = (["state_dir", "servers", "stream", "prefix", "lease_ttl"] as const).filter((field) => session[field] !== undefined);
    if (beside.length > 0 || session.backend !== "file") {
      throw new ConfigError(
        `${label}: session: url names the store by itself: drop ${[...(session.backend !== "file" ? ["backend"] : []), ...beside].join(", ")}`,
      );
    }
  }
  if (session.backend === "jetstream" && overrides.store === undefined && (session.servers === undefined || session.stream === undefined)) {
    throw new ConfigError(`${label}: session: the jetstream backend needs servers: (nats://HOST:PORT) and stream: (its stream's name)`);
  }
}

function telemetryConfig(block: NonNullable<ParsedConfig["telemetry"]>): TelemetryConfig {
  return {
    endpoint: block.endpoint,
    serviceName: block.service_name,
    headersEnv: block.headers_env ?? {},
    captureContent: block.capture_content === true,
  };
}

/** The store the session block names, its state_dir relative to the file's directory. */
function storeConfig(session: ParsedConfig["session"], base: string, label: string): StoreConfig {
  if (session.url !== undefined) return storeOfUrl(session.url, base, label);
  return session.backend === "jetstream"
    ? {
        backend: "jetstream",
        servers: session.servers as string | string[],
        stream: session.stream as string,
        prefix: session.prefix,
        leaseTtlMs: session.lease_ttl,
      }
    : {
        backend: "file",
        dir: session.state_dir === undefined ? undefined : expandPath(session.state_dir, base),
      };
}

/** session.url through the one store parser; what it refuses keeps its code (an unknown scheme's exit), naming the file and field. */
function storeOfUrl(url: string, base: string, label: string): StoreConfig {
  try {
    return parseStoreUrl(url, base);
  } catch (error) {
    if (error instanceof BackendError) throw new BackendError(error.code, `${label}: session.url: ${error.message}`);
    throw error;
  }
}

function compactionOptions(block: NonNullable<ParsedConfig["compaction"]>): CompactionOptions {
  return {
    ...(block.auto === undefined ? {} : { auto: block.auto }),
    ...(block.threshold === undefined ? {} : { threshold: block.threshold }),
    ...(block.window === undefined ? {} : { window: block.window }),
    ...(block.keep_recent === undefined ? {} : { keepRecent: block.keep_recent }),
  };
}

function applyOverrides(raw: unknown, overrides: ConfigOverrides, label: string): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(`${label}: expected a mapping of settings (provider:, model:, tools:, ...)`);
  }
  const merged: Record<string, unknown> = { ...raw };
  if (overrides.provider !== undefined) merged.provider = overrides.provider;
  if (overrides.model !== undefined) merged.model = overrides.model;
  return merged;
}

/** A child agent's agent.yaml, made absolute; one that cannot be read is refused at start, not at its first call. */
function childConfigPath(path: string, base: string, field: string): string {
  const absolute = expandPath(path, base);
  try {
    readFileSync(absolute);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new ConfigError(`${field}: cannot read ${path} (${absolute}): ${reason}; give the path of the child agent's agent.yaml, relative to this file`);
  }
  return absolute;
}

function expandPath(path: string, base: string): string {
  if (path === "~" || path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(base, path);
}

function describeIssue(error: z.ZodError, raw: unknown): string {
  // A misspelt key usually explains the missing one next to it: name it first.
  const issue = error.issues.find((candidate) => candidate.code === "unrecognized_keys") ?? (error.issues[0] as z.core.$ZodIssue);
  const field = issue.path
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
    .join("")
    .replace(/^\./, "");
  if (issue.code === "unrecognized_keys") {
    const where = field === "" ? "" : `${field}: `;
    const valid = keysAt(AgentConfigSchema, issue.path);
    const guesses = issue.keys.map((key) => nearest(key, valid)).filter((guess) => guess !== undefined);
    const hint = guesses.length > 0 ? `did you mean ${guesses.map((key) => `"${key}"`).join(", ")}?` : "check its spelling against docs/agent-yaml.md";
    return `${where}unknown key ${issue.keys.map((key) => `"${key}"`).join(", ")}: ${hint}`;
  }
  const given = issue.path.reduce<unknown>((value, part) => (value as Record<PropertyKey, unknown> | undefined)?.[part], raw);
  if (issue.code === "invalid_type" && issue.expected === "string" && (typeof given === "number" || typeof given === "boolean")) {
    return `${field}: expected a string, and YAML read ${String(given)} as a ${typeof given}: quote it (${String(issue.path.at(-1))}: "${String(given)}")`;
  }
  return `${field === "" ? "config" : field}: ${issue.message}`;
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
