// make test-editors: the packaged .vsix in the real VS Code workbench (code-server) driven by headless Chromium.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const d = require("./driver");

let vsix;
test.before(() => { vsix = d.packageVsix(); });

test("VS Code accepts a laya completion item and ghost text into the file; showStats and codeActions work", async () => {
  const r = await d.run({ vsix, server: d.serverCommand(), name: "e2e" });
  d.check(r);
  console.log(`saved line: ${JSON.stringify(r.text.split("\n")[8])}; screenshots: ${r.screenshots.join(", ")}`);
});

test("the same check fails when the server exits at once", async () => {
  const r = await d.run({ vsix, server: d.BROKEN_SERVER, name: "e2e-broken", timeoutMs: 8000 });
  assert.throws(() => d.check(r), d.CheckFailed);
});
