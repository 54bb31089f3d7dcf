// A module loaded at its first use, once: a provider's SDK, which importing fisk-ai need not load.

/**
 * Loads a module at its first use and keeps it: a provider loads its SDK at its first call,
 * so importing fisk-ai, or making a provider, loads no model SDK.
 */
export function loadedOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
