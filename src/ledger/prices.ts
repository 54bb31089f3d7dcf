// The price table the project ships, and the cost of tokens at a price. Prices are
// published by the providers in US dollars per million tokens and change: the table is
// dated, agent.yaml's `pricing:` replaces or adds any model's, and a model with no price
// has none: its tokens are shown, never a guessed figure.
import type { TokenUsage } from "../runstate/views/run-digest.js";

/** A model's price in US dollars per million tokens of each tier. */
export interface ModelPrice {
  /** Input tokens neither read from nor written to the prompt cache. */
  input: number;
  /** Output tokens. */
  output: number;
  /** Input tokens read from the prompt cache. */
  cache_read: number;
  /** Input tokens written to the prompt cache. */
  cache_write: number;
}

/** Prices by model id. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The day SHIPPED_PRICES were read from the providers' published price lists. */
export const PRICES_AS_OF = "2026-12-05";

/**
 * The models docs/cost-and-lifecycle.md names, at the providers' list prices on PRICES_AS_OF:
 * claude-sonnet-4-5 from Anthropic's pricing page (prompts up to 200K tokens; 5-minute
 * cache writes), gpt-4.1 from OpenAI's (which charges nothing extra to write its cache:
 * written tokens are input). Local models (llama3.2 on Ollama) have no price here.
 */
export const SHIPPED_PRICES: PriceTable = {
  "claude-sonnet-4-5": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  "gpt-4.1": { input: 2, output: 8, cache_read: 0.5, cache_write: 2 },
};

/**
 * The price of `model`: agent.yaml's (`overrides`) first, then the shipped table's. A
 * dated id (`claude-sonnet-4-5-20250929`) takes its alias's price when it has none itself.
 */
export function priceOf(model: string, overrides: PriceTable = {}): ModelPrice | undefined {
  const alias = model.replace(/-\d{8}$/, "");
  return overrides[model] ?? SHIPPED_PRICES[model] ?? overrides[alias] ?? SHIPPED_PRICES[alias];
}

/** What `usage` costs at `price`, in US dollars. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  return (
    (usage.inTokens * price.input + usage.outTokens * price.output + usage.cacheReadTokens * price.cache_read + usage.cacheWriteTokens * price.cache_write) /
    1_000_000
  );
}
