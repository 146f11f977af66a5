// The Cloudflare Worker of the runtime checks, built as a Workers user
// builds one: an ES module worker bundling the package (esbuild with the
// conditions workerd, worker, browser: the package's browser build), the
// WebAssembly imported as a module (a CompiledWasm module in workerd) and
// handed to init(). GET /?server=URL&computer=ID runs the shared checks
// (checks.mjs) and answers the report as JSON.
import * as api from "dory-wire";
import * as client from "dory-wire/client";
import wasm from "dory-wire/web.wasm";
import { runChecks } from "./checks.mjs";
import vectors from "./vectors.mjs";

export default {
  async fetch(request) {
    const params = new URL(request.url).searchParams;
    await api.init(wasm);
    const server = params.get("server") ? { url: params.get("server"), computer: params.get("computer") } : undefined;
    return Response.json(await runChecks({ api, client, vectors, server }));
  },
};
