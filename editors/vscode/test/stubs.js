// Stand-ins for the `vscode` module and vscode-languageclient, so the extension's activation runs under node's
// test runner without VS Code. They record what the extension asked for.
"use strict";
const Module = require("node:module");
const path = require("node:path");

const pkg = require("../package.json");

function makeVscode() {
  const defaults = {};
  for (const [key, prop] of Object.entries(pkg.contributes.configuration.properties)) {
    defaults[key] = prop.default;
  }
  const state = {
    defaults,
    settings: {}, // what the user set, full keys, e.g. "laya.candidates"
    commands: new Map(),
    configListeners: [],
    // window/workspace event listeners by event name (onDidChangeActiveTextEditor, ...)
    listeners: {},
    channels: [],
    messages: [],
    quickPicks: [],
    appliedEdits: [],
  };
  function on(name, listener) {
    (state.listeners[name] ??= []).push(listener);
    return { dispose() { state.listeners[name] = state.listeners[name].filter((l) => l !== listener); } };
  }
  const vscode = {
    __state: state,
    __esModule: true, // so TypeScript's __importStar hands back this object (and its Proxy) as it is
    workspace: {
      getConfiguration(section) {
        const prefix = section ? section + "." : "";
        return {
          get(key, fallback) {
            const full = prefix + key;
            const v = full in state.settings ? state.settings[full] : state.defaults[full];
            return v !== undefined ? v : fallback;
          },
          has(key) {
            return (prefix + key) in state.defaults;
          },
          inspect(key) {
            const full = prefix + key;
            if (!(full in state.defaults)) return undefined;
            return { key: full, defaultValue: state.defaults[full], globalValue: state.settings[full] };
          },
        };
      },
      onDidChangeConfiguration(listener) {
        state.configListeners.push(listener);
        return { dispose() {} };
      },
      onDidCloseTextDocument(listener) { return on("onDidCloseTextDocument", listener); },
      async applyEdit(edit) {
        state.appliedEdits.push(edit);
        return true;
      },
    },
    window: {
      activeTextEditor: undefined,
      onDidChangeActiveTextEditor(listener) { return on("onDidChangeActiveTextEditor", listener); },
      onDidChangeTextEditorSelection(listener) { return on("onDidChangeTextEditorSelection", listener); },
      createOutputChannel(name, options) {
        const channel = { name, options, lines: [], shown: 0, appendLine(l) { this.lines.push(l); },
          append(t) { this.lines.push(t); }, show() { this.shown++; }, clear() { this.lines = []; }, dispose() {},
          info() {}, warn() {}, error() {}, debug() {}, trace() {} };
        state.channels.push(channel);
        return channel;
      },
      async showErrorMessage(m) { state.messages.push(["error", m]); },
      async showWarningMessage(m) { state.messages.push(["warning", m]); },
      async showInformationMessage(m) { state.messages.push(["info", m]); },
      async showQuickPick(items) { state.quickPicks.push(items); return items[0]; },
    },
    commands: {
      registerCommand(id, fn) {
        state.commands.set(id, fn);
        return { dispose() { state.commands.delete(id); } };
      },
    },
    /** Fire a window/workspace event the extension listens to. */
    __fire(name, value) {
      for (const l of state.listeners[name] || []) l(value);
    },
    /** Change settings the way the Settings UI does, then tell the extension. */
    async __setSettings(changes) {
      for (const [k, v] of Object.entries(changes)) {
        if (v === undefined) delete state.settings[k];
        else state.settings[k] = v;
      }
      const changed = Object.keys(changes);
      const event = { affectsConfiguration: (s) => changed.some((k) => k === s || k.startsWith(s + ".")) };
      for (const l of state.configListeners) await l(event);
    },
  };
  // Classes and enums the real vscode-languageclient extends or reads while loading: any other capitalised name
  // is a plain class, so loading the real bundle works.
  return new Proxy(vscode, {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (typeof prop === "string" && /^[A-Z]/.test(prop)) {
        const cls = class {};
        target[prop] = cls;
        return cls;
      }
      return undefined;
    },
  });
}

function makeLanguageClientModule() {
  const clients = [];
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      Object.assign(this, { id, name, serverOptions, clientOptions });
      this.requests = [];
      this.notifications = [];
      this.running = false;
      this.stopped = false;
      this.code2ProtocolConverter = {
        asTextDocumentIdentifier: (d) => ({ uri: d.uri }),
        asPosition: (p) => ({ line: p.line, character: p.character }),
        asRange: (r) => r,
      };
      this.protocol2CodeConverter = { asWorkspaceEdit: async (e) => ({ converted: e }) };
      clients.push(this);
    }
    async start() { this.running = true; }
    async stop() { this.running = false; this.stopped = true; }
    isRunning() { return this.running; }
    async sendRequest(type, params) {
      const method = typeof type === "string" ? type : type.method;
      this.requests.push({ method, params });
      if (method === "laya/stats") return { summary: { requests: 1 }, recent: [] };
      if (method === "textDocument/codeAction") {
        return [{ title: "laya: add a docstring", kind: "refactor.rewrite.laya.addDocstring", data: { at: 3 } }];
      }
      if (method === "codeAction/resolve") return { ...params, edit: { changes: { "file:///a.py": [] } } };
      return null;
    }
    async sendNotification(type, params) {
      this.notifications.push({ method: typeof type === "string" ? type : type.method, params });
    }
  }
  return {
    __clients: clients,
    LanguageClient,
    TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 },
    DidChangeConfigurationNotification: { type: { method: "workspace/didChangeConfiguration" } },
    CodeActionRequest: { type: { method: "textDocument/codeAction" } },
    CodeActionResolveRequest: { type: { method: "codeAction/resolve" } },
    ExecuteCommandRequest: { type: { method: "workspace/executeCommand" } },
  };
}

/** Load a fresh copy of `bundle` with stubbed modules; `stubClient` false keeps the real languageclient. */
function loadExtension(bundle, { stubClient = true } = {}) {
  const vscode = makeVscode();
  const lc = stubClient ? makeLanguageClientModule() : undefined;
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === "vscode") return vscode;
    if (lc && (request === "vscode-languageclient/node" || request === "vscode-languageclient")) return lc;
    return original.call(this, request, parent, isMain);
  };
  const file = path.resolve(__dirname, "..", bundle);
  delete require.cache[file];
  try {
    const ext = require(file);
    return { ext, vscode, lc, restore: () => { Module._load = original; } };
  } catch (err) {
    Module._load = original;
    throw err;
  }
}

function fakeContext() {
  return { subscriptions: [], extension: { packageJSON: pkg } };
}

module.exports = { loadExtension, fakeContext, pkg };
