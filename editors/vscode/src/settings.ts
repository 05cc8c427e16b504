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

/** Whether the user (or workspace) set `key`, as opposed to it having its default. */
export function isSet(cfg: vscode.WorkspaceConfiguration, key: string): boolean {
  const i = cfg.inspect(key);
  return i !== undefined && [i.globalValue, i.workspaceValue, i.workspaceFolderValue].some((v) => v !== undefined);
}

/**
 * The server's `laya` object: the server keys the user set, plus those in `alsoSend` (sent before, so a setting the
 * user removed goes back to its default on the server). Unset keys are left out so that the server's own defaults
 * and command-line flags (`--model`, `--settings`) stay in charge. Dotted keys become nested objects.
 */
export function serverSettings(
  packageJSON: any,
  cfg: vscode.WorkspaceConfiguration,
  alsoSend: Set<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const key of declaredKeys(packageJSON)) {
    if (CLIENT_KEYS.has(key) || !(isSet(cfg, key) || alsoSend.has(key))) {
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

/** The dotted keys present in a settings object from serverSettings(). */
export function sentKeys(settings: Record<string, unknown>, prefix = ""): Set<string> {
  const keys = new Set<string>();
  for (const [k, v] of Object.entries(settings)) {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      for (const sub of sentKeys(v as Record<string, unknown>, prefix + k + ".")) keys.add(sub);
    } else {
      keys.add(prefix + k);
    }
  }
  return keys;
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
