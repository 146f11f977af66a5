// The built site in a real browser: Debian's headless Chromium, driven by
// playwright-core (npm's dev dependency, as in npm/test/browser.test.mjs),
// opens target/docs/ served over a local HTTP server, types "run" into the
// search box, follows the result to the agent-call page (docs/run.md), then
// from there to the Python API reference and back to the site through the
// reference's link, searches for a name of the API ("SpillDirectory") and
// finds its reference pages, and fails on any console error or page error.
// The search index itself: the API references' items are in it, their
// static pages (rustdoc's font licences, sources, assets) are not.
//
//   node --test tests/docs/search.test.mjs     (after make docs)
// Env: DORY_DOCS_SITE (default target/docs), DORY_CHROMIUM (default /usr/bin/chromium).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SITE = resolve(process.env.DORY_DOCS_SITE ?? join(ROOT, "target", "docs"));
const CHROMIUM = process.env.DORY_CHROMIUM ?? "/usr/bin/chromium";
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
};

function serve() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    let path = normalize(join(SITE, decodeURIComponent(url.pathname)));
    if (path !== SITE && !path.startsWith(SITE + "/")) {
      res.writeHead(403);
      res.end();
      return;
    }
    if (existsSync(path) && statSync(path).isDirectory()) path = join(path, "index.html");
    if (!existsSync(path)) {
      res.writeHead(404, { "content-type": "text/html" });
      res.end(existsSync(join(SITE, "404.html")) ? readFileSync(join(SITE, "404.html")) : "");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}

test("the search index has the API references' items and none of their static pages", () => {
  const index = JSON.parse(readFileSync(join(SITE, "search", "search_index.json"), "utf8"));
  const locations = index.docs.map((doc) => doc.location);
  const stray = locations.filter((location) => /static\.files|LICENSE|\/src\/|\/assets\//.test(location));
  assert.deepEqual(stray, [], "the search indexes static pages of the references");
  for (const page of ["api/rust/dory_wire_client/struct.Computer.html", "api/python/dory_wire/client.html#Computer", "api/js/interfaces/client.Computer.html"]) {
    assert.ok(locations.includes(page), `the search index has no entry for ${page}`);
  }
});

test("the site's search finds the agent call, in headless Chromium, with no console error", async (t) => {
  assert.ok(existsSync(join(SITE, "index.html")), `${SITE}/index.html is missing: run make docs first`);
  assert.ok(existsSync(CHROMIUM), `Chromium is not installed at ${CHROMIUM} (scripts/test-docs.sh installs it with apt-get)`);
  const require = createRequire(join(ROOT, "npm", "package.json"));
  const { chromium } = require("playwright-core");
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(join(tmpdir(), "dory-wire-docs-chromium-"));
  let context;
  t.after(async () => {
    if (context) await context.close().catch(() => {});
    server.close();
    rmSync(profile, { recursive: true, force: true });
  });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-quic", "--disable-component-update", "--disable-sync"],
  });
  // Nothing leaves the machine: the site must not need the network.
  const outside = [];
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console error on ${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error on ${page.url()}: ${e.message}`));
  page.on("requestfailed", (r) => {
    // A request cut short by the next navigation (the search worker still
    // loading when the test moves on) is aborted, not failed: a missing file
    // is an HTTP status (below), a dead server a refused connection.
    const why = r.failure()?.errorText;
    if (r.url().startsWith(base) && why !== "net::ERR_ABORTED") errors.push(`request failed: ${r.url()} (${why})`);
  });
  page.on("response", (r) => {
    if (r.url().startsWith(base) && r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });

  await page.goto(`${base}/index.html`);
  assert.match(await page.title(), /dory-wire/);

  // The search box: open it, type, wait for the results of the search index.
  const input = page.locator("input.md-search__input");
  await input.click();
  await input.type("run", { delay: 30 });
  const results = page.locator(".md-search-result__list a.md-search-result__link");
  await results.first().waitFor({ timeout: 30_000 });
  const hrefs = await results.evaluateAll((links) => links.map((a) => a.getAttribute("href")));
  const toRun = hrefs.findIndex((href) => /(^|\/)run\.html([?#]|$)/.test(href ?? ""));
  assert.ok(toRun >= 0, `no search result for "run" points at run.html: ${JSON.stringify(hrefs)}`);
  await Promise.all([page.waitForURL(/\/run\.html/), results.nth(toRun).click()]);
  assert.match(await page.locator("article h1").first().innerText(), /One call for agents/);

  // From the guide into an API reference, and back to the site through its link.
  await page.goto(`${base}/reference.html`);
  await Promise.all([page.waitForURL(/\/api\/python\/dory_wire\/client\.html/), page.locator("a[href$='api/python/dory_wire/client.html']").first().click()]);
  await Promise.all([page.waitForURL(/\/index\.html$/), page.locator("a.dory-site-link").click()]);
  assert.match(await page.title(), /dory-wire/);

  // A name of the API finds its references (scripts/site/hooks.py indexes them).
  await page.goto(`${base}/index.html`);
  await input.click();
  await input.type("SpillDirectory", { delay: 30 });
  await results.first().waitFor({ timeout: 30_000 });
  const found = await results.evaluateAll((links) => links.map((a) => a.getAttribute("href")));
  for (const reference of ["api/rust/", "api/python/", "api/js/"]) {
    assert.ok(found.some((href) => href?.includes(reference)), `no result for "SpillDirectory" in ${reference}: ${JSON.stringify(found)}`);
  }

  assert.deepEqual(outside, [], `the site asked for ${outside.join(", ")}`);
  assert.deepEqual(errors, [], errors.join("\n"));
});
