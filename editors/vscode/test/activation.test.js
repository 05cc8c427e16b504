// Activation of the extension with `vscode` and vscode-languageclient stubbed (node --test).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadExtension, fakeContext, pkg } = require("./stubs");

const CLIENT_KEYS = ["laya.serverPath", "laya.serverArgs", "laya.inlineCompletions", "laya.trace.server"];

async function activated(settings = {}) {
  const h = loadExtension("out/test/extension.js");
  Object.assign(h.vscode.__state.settings, settings);
  const ctx = fakeContext();
  const api = await h.ext.activate(ctx);
  await api.ready;
  return { ...h, ctx, api, state: h.vscode.__state };
}

test("activation starts laya-lsp over stdio with the user's settings as initializationOptions", async (t) => {
  const h = await activated({ "laya.serverPath": "/opt/laya/bin/laya-lsp", "laya.serverArgs": ["--model", "/m"],
    "laya.candidates": 3, "laya.fallback.url": "http://127.0.0.1:8080/v1" });
  t.after(h.restore);
  assert.equal(h.lc.__clients.length, 1);
  const c = h.lc.__clients[0];
  assert.equal(c.running, true);
  assert.equal(c.id, "laya");
  assert.deepEqual(c.serverOptions.run, { command: "/opt/laya/bin/laya-lsp", args: ["--model", "/m"], transport: 0 });
  // Only what the user set: unset keys would override the server's defaults and its --model/--settings flags.
  assert.deepEqual(c.clientOptions.initializationOptions, {
    candidates: 3, fallback: { url: "http://127.0.0.1:8080/v1" },
  });
  const langs = new Set(c.clientOptions.documentSelector.map((s) => s.language));
  for (const l of ["python", "typescript", "go", "rust"]) assert.ok(langs.has(l), l);
  assert.deepEqual([...h.state.commands.keys()].sort(), ["laya.codeActions", "laya.restartServer", "laya.showStats"]);
  assert.equal(h.ctx.subscriptions.length >= 4, true);
});

test("every server setting set by the user reaches the server with its value", async (t) => {
  const settings = {};
  const expected = {};
  for (const [key, prop] of Object.entries(pkg.contributes.configuration.properties)) {
    if (CLIENT_KEYS.includes(key)) continue;
    const value = prop.type === "boolean" ? !prop.default : prop.type === "string" ? "x" : prop.default;
    settings[key] = value;
    const parts = key.split(".").slice(1);
    let node = expected;
    for (const p of parts.slice(0, -1)) node = node[p] ??= {};
    node[parts.at(-1)] = value;
  }
  const h = await activated(settings);
  t.after(h.restore);
  assert.deepEqual(h.lc.__clients[0].clientOptions.initializationOptions, expected);
});

test("every contributed command is registered and every laya.* setting is declared", async (t) => {
  const h = await activated();
  t.after(h.restore);
  for (const cmd of pkg.contributes.commands) assert.ok(h.state.commands.has(cmd.command), cmd.command);
  for (const cmd of h.state.commands.keys()) {
    assert.ok(pkg.contributes.commands.some((c) => c.command === cmd), `${cmd} not in contributes.commands`);
  }
  assert.ok(pkg.activationEvents.includes("onLanguage:python"));
});

test("laya.showStats sends laya/stats and prints it to the laya output channel", async (t) => {
  const h = await activated();
  t.after(h.restore);
  const stats = await h.state.commands.get("laya.showStats")();
  assert.deepEqual(stats, { summary: { requests: 1 }, recent: [] });
  const c = h.lc.__clients[0];
  assert.deepEqual(c.requests.at(-1), { method: "laya/stats", params: { recent: 20 } });
  const channel = h.state.channels.find((ch) => ch.name === "laya");
  assert.ok(channel.lines.some((l) => l.includes('"requests": 1')));
  assert.ok(channel.shown > 0);
});

test("changed settings reach the server; a removed one goes back to its default; a new server path restarts", async (t) => {
  const h = await activated();
  t.after(h.restore);
  const first = h.lc.__clients[0];
  assert.deepEqual(first.clientOptions.initializationOptions, {});
  await h.vscode.__setSettings({ "laya.candidates": 2, "laya.fallback.timeoutMs": 500 });
  let n = first.notifications.at(-1);
  assert.equal(n.method, "workspace/didChangeConfiguration");
  assert.deepEqual(n.params.settings, { laya: { candidates: 2, fallback: { timeoutMs: 500 } } });
  assert.equal(h.lc.__clients.length, 1, "a server setting must not restart the server");

  await h.vscode.__setSettings({ "laya.candidates": undefined });
  n = first.notifications.at(-1);
  assert.deepEqual(n.params.settings, { laya: { candidates: 5, fallback: { timeoutMs: 500 } } });

  await h.vscode.__setSettings({ "laya.serverPath": "/usr/local/bin/laya-lsp" });
  assert.equal(first.stopped, true);
  assert.equal(h.lc.__clients.length, 2);
  assert.equal(h.lc.__clients[1].serverOptions.run.command, "/usr/local/bin/laya-lsp");
  assert.equal(h.lc.__clients[1].running, true);
  assert.deepEqual(h.lc.__clients[1].clientOptions.initializationOptions, { fallback: { timeoutMs: 500 } });
});

test("laya.inlineCompletions=false silences ghost text only", async (t) => {
  const h = await activated();
  t.after(h.restore);
  const mw = h.lc.__clients[0].clientOptions.middleware;
  let called = 0;
  const next = () => { called++; return ["item"]; };
  assert.deepEqual(await mw.provideInlineCompletionItems("doc", "pos", {}, {}, next), ["item"]);
  await h.vscode.__setSettings({ "laya.inlineCompletions": false });
  assert.equal(await mw.provideInlineCompletionItems("doc", "pos", {}, {}, next), null);
  assert.equal(called, 1);
  assert.equal(mw.provideCompletionItem, undefined, "the completion list is left to the client");
});

test("laya.codeActions asks laya only, resolves the picked action and applies its edit", async (t) => {
  const h = await activated();
  t.after(h.restore);
  h.vscode.window.activeTextEditor = { document: { uri: "file:///a.py" }, selection: { start: 0, end: 0 } };
  const title = await h.state.commands.get("laya.codeActions")();
  assert.equal(title, "laya: add a docstring");
  const c = h.lc.__clients[0];
  const req = c.requests.find((r) => r.method === "textDocument/codeAction");
  assert.deepEqual(req.params.textDocument, { uri: "file:///a.py" });
  assert.equal(h.state.quickPicks[0][0].label, "laya: add a docstring");
  const resolve = c.requests.find((r) => r.method === "codeAction/resolve");
  assert.deepEqual(resolve.params.data, { at: 3 });
  assert.deepEqual(h.state.appliedEdits, [{ converted: { changes: { "file:///a.py": [] } } }]);
});

test("deactivate stops the server", async (t) => {
  const h = await activated();
  t.after(h.restore);
  await h.ext.deactivate();
  assert.equal(h.lc.__clients[0].stopped, true);
});

test("the packaged bundle loads with the real vscode-languageclient inside", async (t) => {
  const h = loadExtension("out/extension.js", { stubClient: false });
  t.after(h.restore);
  assert.equal(typeof h.ext.activate, "function");
  assert.equal(typeof h.ext.deactivate, "function");
});

function fakeEditor(uri, version, line, character, languageId = "python") {
  return { document: { uri, version, languageId }, selection: { active: { line, character } } };
}

const rest = () => new Promise((r) => setTimeout(r, 400)); // longer than FOCUS_REST_MS

test("laya/focus is sent where the cursor rests: on opening a file and after a move, not after typing", async (t) => {
  const h = await activated();
  t.after(h.restore);
  const c = h.lc.__clients[0];
  const focus = () => c.notifications.filter((n) => n.method === "laya/focus");
  const opened = fakeEditor("file:///a.py", 1, 0, 0);
  h.vscode.window.activeTextEditor = opened;
  h.vscode.__fire("onDidChangeActiveTextEditor", opened);
  await rest();
  assert.deepEqual(focus(), [{ method: "laya/focus",
    params: { textDocument: { uri: "file:///a.py" }, position: { line: 0, character: 0 } } }]);
  // The cursor moves (same version) and passes line 5 on its way to line 9: one focus, where it rests.
  for (const line of [5, 9]) {
    const moved = fakeEditor("file:///a.py", 1, line, 4);
    h.vscode.window.activeTextEditor = moved;
    h.vscode.__fire("onDidChangeTextEditorSelection", { textEditor: moved });
  }
  await rest();
  assert.deepEqual(focus().map((n) => n.params.position), [{ line: 0, character: 0 }, { line: 9, character: 4 }]);
  // Typing: the cursor moves with a new version of the document: the completion request covers it.
  const typed = fakeEditor("file:///a.py", 2, 9, 5);
  h.vscode.window.activeTextEditor = typed;
  h.vscode.__fire("onDidChangeTextEditorSelection", { textEditor: typed });
  await rest();
  assert.equal(focus().length, 2);
  // A language laya does not serve gets nothing.
  const other = fakeEditor("file:///notes.txt", 1, 3, 0, "plaintext");
  h.vscode.window.activeTextEditor = other;
  h.vscode.__fire("onDidChangeActiveTextEditor", other);
  await rest();
  assert.equal(focus().length, 2);
});
