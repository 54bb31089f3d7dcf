// The agent layer's own errors, in a module of their own so that reporting them does not
// load the configuration parser or the loop (the CLI's start-up pays for every import).

/** A configuration the operator must fix: one line, naming the file and the field. */
export class ConfigError extends Error {
  /** Always `"ConfigError"`. */
  override readonly name = "ConfigError";
}

/** A resume the guard, or the run's state, does not allow. */
export class ResumeRefusedError extends Error {
  /** Always `"ResumeRefusedError"`. */
  override readonly name = "ResumeRefusedError";
}
