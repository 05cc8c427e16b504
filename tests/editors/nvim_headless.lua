-- Headless Neovim driven by tests/test_editor_nvim.py: the laya plugin starts the server, then this script asks
-- for completion, inline completion and laya/stats through Neovim's own LSP client and writes what came back.
-- Env: LAYA_PLUGIN_DIR, LAYA_SERVER_CMD (JSON list), LAYA_SETTINGS (JSON object), LAYA_FILE, LAYA_LINE (0-based),
-- LAYA_TEE_LOG (stop waiting once the server has exited), LAYA_OUT (result JSON), LAYA_FORCE_LEGACY ("1": the
-- plugin's Neovim 0.8-0.10 code path).
local env = vim.env
vim.opt.rtp:prepend(env.LAYA_PLUGIN_DIR)
if env.LAYA_FORCE_LEGACY == "1" then
  -- Take the Neovim 0.8-0.10 path (vim.lsp.start on FileType) on this 0.11 binary.
  vim.lsp.config = nil
  vim.lsp.enable = nil
end
local laya = require("laya")
laya.setup({
  cmd = vim.json.decode(env.LAYA_SERVER_CMD),
  settings = vim.json.decode(env.LAYA_SETTINGS),
  keymaps = false,
})

local out = { nvim = tostring(vim.version()), errors = {},
  start_path = vim.lsp.config == nil and "vim.lsp.start" or "vim.lsp.enable" }
local function finish()
  local f = assert(io.open(env.LAYA_OUT, "w"))
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(env.LAYA_FILE))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype

  local function server_exited()
    local f = io.open(env.LAYA_TEE_LOG, "r")
    if not f then
      return false
    end
    local text = f:read("*a")
    f:close()
    return text:find('"dir": "exit"', 1, true) ~= nil
  end
  out.attached = vim.wait(30000, function()
    return #laya.clients(buf) > 0 or server_exited()
  end, 50) and #laya.clients(buf) > 0
  if not out.attached then
    return
  end

  local line = tonumber(env.LAYA_LINE)
  local text = vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  local pos = { line = line, character = #text }
  local td = { uri = vim.uri_from_bufnr(buf) }
  local function laya_result(responses)
    for id, r in pairs(responses or {}) do
      local c = vim.lsp.get_client_by_id(id)
      if c and c.name == "laya" then
        if r.err then
          table.insert(out.errors, r.err)
        end
        return r.result
      end
    end
  end
  out.completion = laya_result(vim.lsp.buf_request_sync(buf, "textDocument/completion",
    { textDocument = td, position = pos }, 30000))
  out.inline = laya_result(vim.lsp.buf_request_sync(buf, "textDocument/inlineCompletion",
    { textDocument = td, position = pos, context = { triggerKind = 1 } }, 30000))

  out.code_actions = laya_result(vim.lsp.buf_request_sync(buf, "textDocument/codeAction",
    { textDocument = td, range = { start = pos, ["end"] = pos }, context = { diagnostics = {} } }, 30000))
  if type(out.code_actions) == "table" and out.code_actions[1] then
    local client = laya.clients(buf)[1]
    local r = client:request_sync("codeAction/resolve", out.code_actions[1], 30000, buf)
    out.resolved = r and r.result
  end

  local done = false
  laya.request_stats({ recent = 10 }, function(e, result)
    out.stats, out.stats_error, done = result, e, true
  end, buf)
  vim.wait(10000, function()
    return done
  end, 20)
end)
if not ok then
  table.insert(out.errors, tostring(err))
end
finish()
