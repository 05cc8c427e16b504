// Drives the real VS Code workbench (code-server 4.100.3 = Code 1.100.3) in headless Chromium with the packaged
// laya .vsix installed: opens a Python file, types ".", accepts the laya item from the suggest widget, then the
// ghost text that follows it with Tab, saves, shows laya/stats, applies a laya code action and saves again, and reports what landed in the file next to what the
// server answered (recorded by tests/editors/lsp_tee.py between VS Code and laya-lsp).
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const net = require("node:net");
const http = require("node:http");
const { spawn, execFileSync } = require("node:child_process");
const puppeteer = require("puppeteer-core");

const ROOT = path.resolve(__dirname, "..", "..", "..");
const ARTIFACTS = path.join(ROOT, "tests", "artifacts");
const CODE_SERVER = path.join(__dirname, "node_modules", ".bin", "code-server");
const PYTHON = process.env.LAYA_PYTHON || path.join(ROOT, ".venv", "bin", "python");
const TEE = path.join(ROOT, "tests", "editors", "lsp_tee.py");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
];
// helper() is clean code for the code-action step; main() gets the completions.
const SOURCE = "import os\n\n\ndef helper(a, b):\n    return a + b\n\n\ndef main():\n    x = os";
const PREFIX = "    x = os.";
const LINE = 8;

class CheckFailed extends Error {}

function log(...a) {
  if (process.env.LAYA_E2E_VERBOSE) console.error("[e2e]", ...a);
}

/** The laya-lsp command for the test: the embedded default model (a real completion, as a user sees it), or
 * LAYA_E2E_MODEL. */
function serverCommand() {
  const model = process.env.LAYA_E2E_MODEL;
  return model ? [PYTHON, "-m", "laya_lsp", "--model", model] : [PYTHON, "-m", "laya_lsp"];
}

const BROKEN_SERVER = [PYTHON, "-c", "import sys; sys.exit(1)"];

function packageVsix() {
  const out = execFileSync("bash", [path.join(ROOT, "editors", "vscode", "scripts", "package.sh")],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return out.trim().split("\n").pop();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on("error", reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(pred, timeoutMs, what, intervalMs = 100) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new CheckFailed(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

function healthy(port) {
  return new Promise((resolve) => {
    http.get({ host: "127.0.0.1", port, path: "/healthz", timeout: 1000 }, (res) => { res.resume(); resolve(res.statusCode === 200); })
      .on("error", () => resolve(false));
  });
}

function readLog(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).flatMap((l) => {
    try { return [JSON.parse(l)]; } catch { return []; }
  });
}

/** What laya-lsp answered: completion newTexts and inline insertTexts. */
function answers(file) {
  const recs = readLog(file);
  const methodById = new Map();
  for (const r of recs) if (r.dir === "to_server" && r.msg.method && r.msg.id !== undefined) methodById.set(r.msg.id, r.msg.method);
  const completion = [];
  const inline = [];
  for (const r of recs) {
    if (r.dir !== "to_editor" || r.msg.method || !methodById.has(r.msg.id)) continue;
    const method = methodById.get(r.msg.id);
    const result = r.msg.result;
    const items = Array.isArray(result) ? result : (result && result.items) || [];
    if (method === "textDocument/completion") {
      for (const it of items) completion.push((it.textEdit && it.textEdit.newText) || it.insertText || it.label);
    } else if (method === "textDocument/inlineCompletion") {
      for (const it of items) inline.push(typeof it.insertText === "string" ? it.insertText : it.insertText.value);
    }
  }
  const focus = recs.filter((r) => r.dir === "to_server" && r.msg.method === "laya/focus").map((r) => r.msg.params);
  return { completion, inline, focus, exited: recs.some((r) => r.dir === "exit"),
    opened: recs.some((r) => r.dir === "to_server" && r.msg.method === "textDocument/didOpen") };
}

/** The code actions the server resolved (codeAction/resolve results), in order. */
function resolvedActions(file) {
  const recs = readLog(file);
  const ids = new Set(recs.filter((r) => r.dir === "to_server" && r.msg.method === "codeAction/resolve").map((r) => r.msg.id));
  return recs.filter((r) => r.dir === "to_editor" && !r.msg.method && ids.has(r.msg.id)).map((r) => r.msg.result);
}

/** Apply a WorkspaceEdit's TextEdits for `uri` to `text` (LSP columns are UTF-16 units, as JS string indices). */
function applyEdit(text, uri, edit) {
  let edits = [...((edit.changes || {})[uri] || [])];
  for (const ch of edit.documentChanges || []) if (ch.textDocument && ch.textDocument.uri === uri) edits = edits.concat(ch.edits);
  const lines = text.split("\n");
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const spans = edits.map((e) => [offset(e.range.start), offset(e.range.end), e.newText]).sort((a, b) => b[0] - a[0]);
  for (const [start, end, t] of spans) text = text.slice(0, start) + t + text.slice(end);
  return text;
}

/**
 * One run of the workbench against `server` (argv). Returns what happened; never throws for editor behaviour
 * (check() judges), only for set-up failures.
 */
async function run({ vsix, server, name, timeoutMs = 25000 }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `laya-e2e-${name}-`));
  const ws = path.join(tmp, "ws");
  const user = path.join(tmp, "user");
  const exts = path.join(tmp, "ext");
  fs.mkdirSync(path.join(user, "User"), { recursive: true });
  fs.mkdirSync(ws);
  const file = path.join(ws, "example.py");
  fs.writeFileSync(file, SOURCE);
  const teeLog = path.join(tmp, "lsp.jsonl");
  const [serverPath, ...serverArgs] = [PYTHON, TEE, teeLog, "--", ...server];
  fs.writeFileSync(path.join(user, "User", "settings.json"), JSON.stringify({
    "laya.serverPath": serverPath,
    "laya.serverArgs": serverArgs,
    "laya.candidates": 3,
    "laya.maxTokens": 8,
    "editor.wordBasedSuggestions": "off",
    "editor.quickSuggestions": { other: "on", comments: "off", strings: "off" },
    "editor.inlineSuggest.enabled": true,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "security.workspace.trust.enabled": false,
    "git.enabled": false,
    "chat.commandCenter.enabled": false,
    "window.commandCenter": false,
  }, null, 2));
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(tmp, "config"), XDG_DATA_HOME: path.join(tmp, "data") };
  const common = ["--user-data-dir", user, "--extensions-dir", exts];
  execFileSync(CODE_SERVER, [...common, "--install-extension", vsix], { env, stdio: "ignore" });

  const port = await freePort();
  const serverLog = fs.openSync(path.join(tmp, "code-server.log"), "w");
  const cs = spawn(CODE_SERVER, [...common, "--bind-addr", `127.0.0.1:${port}`, "--auth", "none",
    "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
    "--disable-getting-started-override", ws], { env, stdio: ["ignore", serverLog, serverLog] });
  const result = { name, tmp, file, suggestSeen: false, ghostSeen: false, statsShown: false, screenshots: [],
    errors: [] };
  let browser;
  let page;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  try {
    await waitFor(() => healthy(port), 60000, "code-server", 300);
    browser = await puppeteer.launch({
      executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, `--user-data-dir=${path.join(tmp, "chrome")}`],
      defaultViewport: { width: 1280, height: 720 },
    });
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
    await sleep(1500);
    const shot = async (label) => {
      const p = path.join(ARTIFACTS, `vscode-${name}-${label}.png`);
      await page.screenshot({ path: p });
      result.screenshots.push(p);
    };

    // Open example.py with Quick Open.
    await page.keyboard.down("Control"); await page.keyboard.press("KeyP"); await page.keyboard.up("Control");
    await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 15000 });
    await page.keyboard.type("example.py");
    await page.waitForFunction(() => [...document.querySelectorAll(".quick-input-list .monaco-list-row")]
      .some((r) => r.textContent.includes("example.py")), { timeout: 20000 });
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => [...document.querySelectorAll(".monaco-editor .view-line")]
      .some((l) => l.textContent.includes("import")), { timeout: 20000 });
    log("file open");
    // The extension starts laya-lsp for Python; wait until the server has the document (or has died).
    await waitFor(() => { const a = answers(teeLog); return a.opened || a.exited; }, timeoutMs, "laya-lsp to open the document");
    log("server has the document", answers(teeLog));
    // The cursor rests in the opened file: the extension tells the server where (laya/focus).
    await waitFor(() => { const a = answers(teeLog); return a.focus.length || a.exited; }, timeoutMs, "laya/focus")
      .catch((e) => result.errors.push(String(e)));

    await page.click(".monaco-editor .view-lines");
    await page.keyboard.down("Control"); await page.keyboard.press("End"); await page.keyboard.up("Control");
    await page.keyboard.type(".");
    // 1. The completion list: the suggest widget with laya's items; Enter accepts the first.
    try {
      await waitFor(async () => answers(teeLog).exited || await page.$(".suggest-widget.visible .monaco-list-row"),
        timeoutMs, "the suggest widget");
      result.suggestSeen = !!(await page.$(".suggest-widget.visible .monaco-list-row"));
    } catch (e) { result.errors.push(String(e)); }
    await sleep(400);
    await shot("suggest");
    if (result.suggestSeen) await page.keyboard.press("Enter");
    await sleep(300);

    // 2. Ghost text right after the accepted item (VS Code asks for inline completions after each edit; Alt+\
    // asks explicitly if none shows), accepted with Tab.
    const ghostSelector = ".monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text";
    try {
      await waitFor(async () => answers(teeLog).exited || await page.$(ghostSelector), 3000, "ghost text");
    } catch {
      await page.keyboard.down("Alt"); await page.keyboard.press("Backslash"); await page.keyboard.up("Alt");
    }
    try {
      await waitFor(async () => answers(teeLog).exited || await page.$(ghostSelector), timeoutMs, "ghost text");
      result.ghostSeen = !!(await page.$(ghostSelector));
    } catch (e) { result.errors.push(String(e)); }
    await sleep(300);
    await shot("ghost");
    if (result.ghostSeen) await page.keyboard.press("Tab");
    await sleep(300);

    const before = fs.readFileSync(file, "utf8");
    await page.keyboard.down("Control"); await page.keyboard.press("KeyS"); await page.keyboard.up("Control");
    await waitFor(() => fs.readFileSync(file, "utf8") !== before, 5000, "the file to be saved").catch((e) => result.errors.push(String(e)));
    await sleep(300);
    await shot("saved");

    // 3. The laya.showStats command from the Command Palette: laya/stats in the 'laya' output channel.
    if (!answers(teeLog).exited) {
      await page.keyboard.down("Control"); await page.keyboard.down("Shift");
      await page.keyboard.press("KeyP");
      await page.keyboard.up("Shift"); await page.keyboard.up("Control");
      await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 15000 });
      await page.keyboard.type("laya: Show Stats");
      await page.waitForFunction(() => [...document.querySelectorAll(".quick-input-list .monaco-list-row")]
        .some((r) => r.textContent.includes("Show Stats")), { timeout: 15000 });
      await page.keyboard.press("Enter");
      try {
        await page.waitForFunction(() => [...document.querySelectorAll(".panel .view-line")]
          .some((l) => /"(cacheBudgetBytes|loadError|blas)"/.test(l.textContent)), { timeout: 15000 });
        result.statsShown = true;
      } catch (e) { result.errors.push(`laya/stats not shown: ${e}`); }
      await shot("stats");

      // 4. laya.codeActions inside helper(): pick "add a docstring" (or the first action); the extension resolves
      // it and applies the edit; save.
      result.textBeforeAction = fs.readFileSync(file, "utf8");
      await page.click(".monaco-editor .view-lines");
      await page.keyboard.down("Control"); await page.keyboard.press("KeyG"); await page.keyboard.up("Control");
      await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 15000 });
      await page.keyboard.type("5");
      await page.keyboard.press("Enter");
      await sleep(300);
      await page.keyboard.down("Control"); await page.keyboard.down("Shift");
      await page.keyboard.press("KeyP");
      await page.keyboard.up("Shift"); await page.keyboard.up("Control");
      await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 15000 });
      await page.keyboard.type("laya: Code Actions at Cursor");
      await page.waitForFunction(() => [...document.querySelectorAll(".quick-input-list .monaco-list-row")]
        .some((r) => r.textContent.includes("Code Actions at Cursor")), { timeout: 15000 });
      await page.keyboard.press("Enter");
      try {
        await page.waitForFunction(() => [...document.querySelectorAll(".quick-input-list .monaco-list-row")]
          .some((r) => r.textContent.startsWith("laya:")), { timeout: timeoutMs });
        if (await page.evaluate(() => [...document.querySelectorAll(".quick-input-list .monaco-list-row")]
          .some((r) => r.textContent.includes("add a docstring")))) {
          await page.keyboard.type("docstring");
        }
        await sleep(300);
        await shot("code-actions");
        await page.keyboard.press("Enter");
        await waitFor(() => readLog(teeLog).some((r) => r.dir === "to_server" && r.msg.method === "codeAction/resolve"),
          timeoutMs, "codeAction/resolve");
        await waitFor(() => resolvedActions(teeLog).length > 0, timeoutMs, "the resolved action");
        await sleep(500);
        await page.keyboard.down("Control"); await page.keyboard.press("KeyS"); await page.keyboard.up("Control");
        await waitFor(() => fs.readFileSync(file, "utf8") !== result.textBeforeAction, 5000, "the file to be saved");
        await shot("code-action-applied");
      } catch (e) { result.errors.push(`code action: ${e}`); }
    }
  } catch (e) {
    result.errors.push(String(e));
    if (page) await page.screenshot({ path: path.join(ARTIFACTS, `vscode-${name}-error.png`) }).catch(() => {});
  } finally {
    if (browser) await browser.close().catch(() => {});
    cs.kill("SIGTERM");
    await new Promise((r) => { if (cs.exitCode !== null) r(); else { cs.once("exit", r); setTimeout(r, 5000); } });
  }
  result.text = result.textBeforeAction ?? fs.readFileSync(file, "utf8");
  result.textAfterAction = fs.readFileSync(file, "utf8");
  result.uri = require("node:url").pathToFileURL(file).href;
  result.resolved = resolvedActions(teeLog);
  Object.assign(result, answers(teeLog));
  return result;
}

/**
 * Throws CheckFailed unless a laya completion item and the laya ghost text after it both landed in the saved file,
 * laya.showStats showed the server's stats, and laya.codeActions applied the edit of the action the server resolved.
 */
function check(r) {
  if (!r.suggestSeen) throw new CheckFailed(`no suggest widget (${r.errors.join("; ")})`);
  if (!r.ghostSeen) throw new CheckFailed(`no ghost text (${r.errors.join("; ")})`);
  if (!r.focus.some((f) => f.textDocument.uri === r.uri && f.position.line === 0)) {
    throw new CheckFailed(`no laya/focus for the opened file: ${JSON.stringify(r.focus)}`);
  }
  if (!r.statsShown) throw new CheckFailed(`laya.showStats showed no laya/stats (${r.errors.join("; ")})`);
  const resolved = r.resolved.at(-1);
  if (!resolved || !resolved.title.startsWith("laya") || !resolved.edit) {
    throw new CheckFailed(`no laya code action resolved with an edit: ${JSON.stringify(resolved)} (${r.errors.join("; ")})`);
  }
  const expected = applyEdit(r.text, r.uri, resolved.edit);
  if (expected === r.text || r.textAfterAction !== expected) {
    throw new CheckFailed(`the file does not hold the resolved code action's edit: ${JSON.stringify(r.textAfterAction)}`);
  }
  const line = r.text.split("\n")[LINE] || "";
  if (!line.startsWith(PREFIX) || line === PREFIX) throw new CheckFailed(`nothing accepted: ${JSON.stringify(line)}`);
  // The line is PREFIX + a laya completion item + a laya ghost text.
  const rest = line.slice(PREFIX.length);
  const item = r.completion.find((a) => a && rest.startsWith(a) && r.inline.includes(rest.slice(a.length)));
  if (item === undefined) {
    throw new CheckFailed(`${JSON.stringify(rest)} is not a laya item ${JSON.stringify(r.completion)} followed by ` +
      `a laya ghost text ${JSON.stringify(r.inline)}`);
  }
}

module.exports = { run, check, packageVsix, serverCommand, BROKEN_SERVER, CheckFailed };
