// Random bytes and Node's built-in modules for the client, without an
// `import` of either where the platform lacks them: the client module must
// load (and be bundled) for browsers and Workers, which have Web Crypto and
// no `node:` modules, and whose bundlers and Miniflare refuse a `node:`
// import or a dynamic import with a computed specifier.

/**
 * A built-in module of Node, Deno or Bun, got when first needed:
 * `process.getBuiltinModule` (Node 20.16 and later, Deno, Bun), else
 * `require` (Node 18: the client's CommonJS build). Throws where neither
 * exists (browsers, Workers).
 */
export function builtin(name) {
  const proc = globalThis.process;
  if (proc !== undefined && proc !== null && typeof proc.getBuiltinModule === "function") {
    const found = proc.getBuiltinModule(name);
    if (found !== undefined) return found;
  }
  if (typeof module === "object" && module !== null && typeof module.require === "function") return module.require(name);
  throw new Error(`${name} is not available on this platform: SpillDirectory writes files with Node, Deno or Bun`);
}

/** `n` random bytes: Web Crypto's `crypto.getRandomValues`, or node:crypto's (Node 18 has no global `crypto`). */
export function randomBytes(n) {
  const webCrypto = globalThis.crypto;
  if (webCrypto !== undefined && webCrypto !== null && typeof webCrypto.getRandomValues === "function") return webCrypto.getRandomValues(new Uint8Array(n));
  return builtin("node:crypto").webcrypto.getRandomValues(new Uint8Array(n));
}
