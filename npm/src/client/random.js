// Random bytes and Node's modules for the client, without loading either
// where the platform lacks them: the client module must load in browsers
// and Workers, which have Web Crypto and no `node:` modules.

/**
 * A module of the platform, imported when first needed. The specifier is
 * a variable so that neither esbuild nor a user's bundler tries to resolve
 * it for the browser build: only Node, Deno and Bun ever get here.
 */
export function nodeModule(specifier) {
  const name = specifier;
  return import(name);
}

/** `n` random bytes: Web Crypto's `crypto.getRandomValues`, or node:crypto's (Node 18 has no global `crypto`). */
export async function randomBytes(n) {
  const webCrypto = globalThis.crypto;
  if (webCrypto !== undefined && typeof webCrypto.getRandomValues === "function") return webCrypto.getRandomValues(new Uint8Array(n));
  const { webcrypto } = await nodeModule("node:crypto");
  return webcrypto.getRandomValues(new Uint8Array(n));
}
