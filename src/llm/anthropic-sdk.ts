// The part of the Anthropic SDK the provider uses, loaded at its first call: the client's
// core, the messages resource and the error classes. Named statically here, not imported
// from the SDK's index (a dynamic import's target is kept whole), so the CLI's bundle leaves
// out the resources no run calls, which every anthropic run loaded (test/startup.test.ts).
export { BaseAnthropic } from "@anthropic-ai/sdk/client";
export { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk/error";
export { Messages } from "@anthropic-ai/sdk/resources/messages";
