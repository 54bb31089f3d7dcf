// A tool is code the model steers: it gets our environment minus our credentials.
// The provider keys and the NATS credential variables are always taken out, and so is
// every variable agent.yaml names as a secret (src/config/secret-variables.ts, which
// env_deny is one source of); a tool gets one back only by naming it in its own `env`.

/** Credentials the runtime itself reads; never handed to a tool unasked. */
export const CREDENTIAL_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "NATS_CREDS",
  "NATS_NKEY",
  "NATS_NKEY_SEED",
  "NATS_JWT",
  "NATS_USER",
  "NATS_PASSWORD",
  "NATS_TOKEN",
  // A tracing backend's API key travels in the OTLP headers.
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
];

/** The environment a tool process starts with. */
export function toolEnvironment(base: NodeJS.ProcessEnv, deny: readonly string[], passOn: readonly string[]): Record<string, string> {
  const withheld = new Set([...CREDENTIAL_VARIABLES, ...deny]);
  for (const name of passOn) withheld.delete(name);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !withheld.has(name)) env[name] = value;
  }
  return env;
}
