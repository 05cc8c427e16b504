// laya for VS Code: a thin client that starts laya-lsp and lets vscode-languageclient wire completion, inline
// (ghost-text) completion and code actions; plus commands for laya/stats and laya's code actions.
import * as vscode from "vscode";
import {
  CodeAction,
  CodeActionRequest,
  CodeActionResolveRequest,
  Command,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { SECTION, sentKeys, serverCommand, serverSettings } from "./settings";

export const LANGUAGES = [
  "python", "javascript", "javascriptreact", "typescript", "typescriptreact",
  "go", "rust", "c", "cpp", "java", "lua", "shellscript",
];
export const STATS_METHOD = "laya/stats";
export const FOCUS_METHOD = "laya/focus";
// How long the cursor rests before the server is told where it is: a person moving through a file does not send
// a prefill per line passed.
export const FOCUS_REST_MS = 300;

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;
let packageJSON: any;
// Server keys sent so far: once sent, a key is always sent, so removing the setting restores the default.
let sent = new Set<string>();

function settingsForServer(): Record<string, unknown> {
  const settings = serverSettings(packageJSON, config(), sent);
  sent = new Set([...sent, ...sentKeys(settings)]);
  return settings;
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

function createClient(): LanguageClient {
  const { command, args } = serverCommand(config());
  const serverOptions: ServerOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args: [...args, "--log-level", "DEBUG"], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
    initializationOptions: settingsForServer(),
    outputChannel: output,
    middleware: {
      // Ghost text can be switched off on its own; the completion list stays.
      provideInlineCompletionItems: (document, position, context, token, next) =>
        config().get<boolean>("inlineCompletions", true) ? next(document, position, context, token) : null,
    },
  };
  return new LanguageClient("laya", "laya", serverOptions, clientOptions);
}

async function startClient(): Promise<void> {
  sent = new Set(); // a new server process starts from its own defaults
  client = createClient();
  try {
    await client.start();
  } catch (err) {
    const { command } = serverCommand(config());
    void vscode.window.showErrorMessage(
      `laya: could not start '${command}' (${err}). Install laya-lsp or set laya.serverPath.`,
    );
  }
}

async function restartClient(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    await old.stop().catch(() => undefined);
  }
  await startClient();
}

/**
 * Tells the server where the cursor rests (`laya/focus`) so it prefills its cache for that spot before the first
 * keystroke there: when an editor of a laya language becomes active (a file opened or switched to) and when the
 * cursor moves and then rests for FOCUS_REST_MS. A cursor that moves because the user typed is not reported (the
 * document's version changed with it): the completion request for that keystroke covers it.
 */
class FocusReporter implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private versions = new Map<string, number>(); // document → its version at its last selection change

  constructor(private readonly rest = FOCUS_REST_MS) {}

  activeChanged(editor: vscode.TextEditor | undefined): void {
    if (editor) this.schedule(editor);
  }

  selectionChanged(editor: vscode.TextEditor): void {
    const key = editor.document.uri.toString();
    const last = this.versions.get(key);
    this.versions.set(key, editor.document.version);
    if (last !== undefined && last !== editor.document.version) {
      this.cancel(); // typing moved the cursor
      return;
    }
    this.schedule(editor);
  }

  closed(document: vscode.TextDocument): void {
    this.versions.delete(document.uri.toString());
  }

  private schedule(editor: vscode.TextEditor): void {
    this.cancel();
    if (!LANGUAGES.includes(editor.document.languageId)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (vscode.window.activeTextEditor === editor) void sendFocus(editor);
    }, this.rest);
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.cancel();
  }
}

async function sendFocus(editor: vscode.TextEditor): Promise<void> {
  if (!client || !client.isRunning()) return;
  const c2p = client.code2ProtocolConverter;
  await client.sendNotification(FOCUS_METHOD, {
    textDocument: c2p.asTextDocumentIdentifier(editor.document),
    position: c2p.asPosition(editor.selection.active),
  }).catch(() => undefined);
}

/** laya.showStats: laya/stats, pretty-printed into the 'laya' output channel. Returns the result. */
export async function showStats(): Promise<unknown> {
  if (!client || !client.isRunning()) {
    void vscode.window.showWarningMessage("laya: the server is not running");
    return undefined;
  }
  const stats = await client.sendRequest(STATS_METHOD, { recent: 20 });
  output?.appendLine(`laya/stats ${new Date().toISOString()}`);
  output?.appendLine(JSON.stringify(stats, null, 2));
  output?.show(true);
  return stats;
}

/** laya.codeActions: only laya's code actions at the cursor or selection, picked from a list, resolved, applied. */
export async function codeActions(): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor) {
    return undefined;
  }
  const c2p = client.code2ProtocolConverter;
  const actions = await client.sendRequest(CodeActionRequest.type, {
    textDocument: c2p.asTextDocumentIdentifier(editor.document),
    range: c2p.asRange(editor.selection),
    context: { diagnostics: [], triggerKind: 1 },
  });
  if (!actions || actions.length === 0) {
    void vscode.window.showInformationMessage("laya: no code actions here");
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    actions.map((a) => ({ label: a.title, action: a })),
    { placeHolder: "laya code actions" },
  );
  if (!picked) {
    return undefined;
  }
  let action = picked.action as CodeAction | Command;
  // laya lists actions cheaply and computes the edit on codeAction/resolve.
  // (CodeAction.is() would refuse such an action: it wants an edit or a command already.)
  const isCommand = typeof (action as Command).command === "string";
  if (!isCommand && !(action as CodeAction).edit && (action as CodeAction).data !== undefined) {
    action = await client.sendRequest(CodeActionResolveRequest.type, action as CodeAction);
  }
  if ("edit" in action && action.edit) {
    await vscode.workspace.applyEdit(await client.protocol2CodeConverter.asWorkspaceEdit(action.edit));
  }
  const command = "command" in action && typeof action.command === "object" ? action.command
    : "command" in action && typeof action.command === "string" ? (action as Command) : undefined;
  if (command) {
    await client.sendRequest(ExecuteCommandRequest.type, { command: command.command, arguments: command.arguments });
  }
  return action.title;
}

export async function activate(context: vscode.ExtensionContext) {
  packageJSON = context.extension?.packageJSON ?? require("../package.json");
  output = vscode.window.createOutputChannel("laya", { log: true });
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("laya.showStats", showStats),
    vscode.commands.registerCommand("laya.codeActions", codeActions),
    vscode.commands.registerCommand("laya.restartServer", restartClient),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration(`${SECTION}.serverPath`) || e.affectsConfiguration(`${SECTION}.serverArgs`)) {
        await restartClient();
      } else if (e.affectsConfiguration(SECTION) && client?.isRunning()) {
        await client.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { [SECTION]: settingsForServer() },
        });
      }
    }),
  );
  const focus = new FocusReporter();
  context.subscriptions.push(
    focus,
    vscode.window.onDidChangeActiveTextEditor((editor) => focus.activeChanged(editor)),
    vscode.window.onDidChangeTextEditorSelection((e) => focus.selectionChanged(e.textEditor)),
    vscode.workspace.onDidCloseTextDocument((document) => focus.closed(document)),
  );
  // Not awaited: activation (and the commands) must not wait for, or hang on, a server that is slow or broken.
  const ready = startClient().then(() => focus.activeChanged(vscode.window.activeTextEditor));
  return { client: () => client, showStats, ready };
}

export async function deactivate(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    await old.stop();
  }
}
