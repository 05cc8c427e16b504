// The `laya.*` settings: which belong to the server (sent as initializationOptions and
// workspace/didChangeConfiguration) and which to this extension only.
import * as vscode from "vscode";

export const SECTION = "laya";

/** Settings read by the extension itself and never sent to the server. */
export const CLIENT_KEYS = new Set(["serverPath", "serverArgs", "inlineCompletions", "trace.server"]);

/** Declared keys below `laya.` from package.json, e.g. "candidates", "fallback.url". */
export function declaredKeys(packageJSON: any): string[] {
  const props = packageJSON?.contributes?.configuration?.properties ?? {};
  return Object.keys(props)
    .filter((k) => k.startsWith(SECTION + "."))
    .map((k) => k.slice(SECTION.length + 1));
}

/**
 * The server's `laya` object: every declared server key with its current value (the default when unset), so a
 * setting removed by the user goes back to its default on the server too. Dotted keys become nested objects.
 */
export function serverSettings(packageJSON: any, cfg: vscode.WorkspaceConfiguration): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const key of declaredKeys(packageJSON)) {
    if (CLIENT_KEYS.has(key)) {
      continue;
    }
    const value = cfg.get(key);
    if (value === undefined) {
      continue;
    }
    const parts = key.split(".");
    let node = out;
    for (const p of parts.slice(0, -1)) {
      node = node[p] ??= {};
    }
    node[parts[parts.length - 1]] = value;
  }
  return out;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

export function serverCommand(cfg: vscode.WorkspaceConfiguration): ServerCommand {
  const command = (cfg.get<string>("serverPath") || "laya-lsp").trim();
  const args = (cfg.get<string[]>("serverArgs") ?? []).filter((a) => typeof a === "string");
  return { command, args };
}
