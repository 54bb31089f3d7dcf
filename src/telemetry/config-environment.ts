// agent.yaml's telemetry block as the standard OpenTelemetry environment it stands for,
// so that one path (otel-setup.ts) reads either. Variables set in the environment win:
// an operator can send a configured agent's traces elsewhere, or turn them off.
import { ConfigError } from "../agent/agent-errors.js";
import type { TelemetryConfig } from "../config/agent-config.js";

/** The environment tracing reads: `env` with the block's settings beneath it; `env` itself without a block. */
export function telemetryEnvironment(telemetry: TelemetryConfig | undefined, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (telemetry === undefined) return env;
  const headers = Object.entries(telemetry.headersEnv).map(([header, variable]) => {
    const value = env[variable];
    if (value === undefined || value === "")
      throw new ConfigError(`telemetry.headers_env.${header}: ${variable} is not set: export the collector's key in it, or remove the header`);
    return `${header}=${encodeURIComponent(value)}`;
  });
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: telemetry.endpoint,
    ...(telemetry.serviceName === undefined ? {} : { OTEL_SERVICE_NAME: telemetry.serviceName }),
    ...(headers.length === 0 ? {} : { OTEL_EXPORTER_OTLP_HEADERS: headers.join(",") }),
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: String(telemetry.captureContent),
    ...env,
  };
}
