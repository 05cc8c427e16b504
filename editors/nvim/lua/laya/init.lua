-- laya-lsp for Neovim: local code completions from an MLX model over the built-in LSP client.
--
--   require("laya").setup({ cmd = { "laya-lsp" }, settings = { candidates = 3 } })
--
-- Neovim 0.11+: registered with vim.lsp.config/vim.lsp.enable. Neovim 0.8-0.10: started with vim.lsp.start on
-- FileType. Ghost text (textDocument/inlineCompletion) on 0.12+, the completion popup with autotrigger on 0.11,
-- omnifunc (<C-x><C-o>) before that.
local M = {}

M.name = "laya"

M.defaults = {
  -- The server command; add "--model", "/path/to/mlx-model" to use another model than the embedded one.
  cmd = { "laya-lsp" },
  -- The `laya` settings (camelCase keys, as in the README's Settings table). Sent as initializationOptions
  -- and again as workspace/didChangeConfiguration {laya = ...}.
  settings = {},
  filetypes = {
    "python", "javascript", "javascriptreact", "typescript", "typescriptreact",
    "go", "rust", "c", "cpp", "java", "lua", "sh",
  },
  root_markers = { ".git", "pyproject.toml", "package.json", "go.mod", "Cargo.toml" },
  -- Ghost text where Neovim has vim.lsp.inline_completion (0.12+); <Tab> accepts (see keymaps.accept_inline).
  inline = true,
  -- The completion popup: vim.lsp.completion (0.11+) opening as you type when autotrigger is true.
  completion = true,
  autotrigger = true,
  -- Buffer-local keymaps; set one to false to leave that key alone, or keymaps = false for none.
  keymaps = {
    accept_inline = "<Tab>", -- insert mode, only while ghost text is shown (0.12+)
    next_inline = "<M-]>", -- insert mode, cycle ghost-text candidates (0.12+)
    stats = "<leader>ls", -- normal mode, :LayaStats
    code_action = "<leader>la", -- normal/visual mode, :LayaCodeAction
  },
  -- Milliseconds the cursor rests (after opening a buffer or moving in it, not typing) before laya is told where
  -- it is (`laya/focus`): the server then prefills its cache for that spot, so the first pause there is fast.
  -- false: never tell.
  focus_ms = 300,
  -- Called after laya's own on_attach, with (client, bufnr).
  on_attach = nil,
}

M.config = vim.deepcopy(M.defaults)

local function has(version)
  return vim.fn.has("nvim-" .. version) == 1
end

-- vim.json encodes an empty Lua table as [], which the server rightly refuses as settings: send {} instead.
local function as_object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

--- The laya clients, attached to `bufnr` when given.
function M.clients(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  return get({ name = M.name, bufnr = bufnr })
end

local function request(client, method, params, handler, bufnr)
  if has("0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function supports(client, method)
  if has("0.11") then
    return client:supports_method(method)
  end
  return client.supports_method(method)
end

--- Ask the running server for `laya/stats`; `callback(err, result)`. Returns false when no laya client runs.
function M.request_stats(params, callback, bufnr)
  local client = M.clients(bufnr)[1] or M.clients()[1]
  if not client then
    return false
  end
  request(client, "laya/stats", params or { recent = 20 }, function(err, result)
    callback(err, result)
  end, bufnr)
  return true
end

--- :LayaStats: the server's recent requests, cache use and model, in a scratch split.
function M.show_stats()
  local ok = M.request_stats({ recent = 20 }, function(err, result)
    if err then
      vim.notify("laya/stats failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    vim.cmd("botright new")
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    vim.api.nvim_buf_set_name(buf, "laya://stats/" .. buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(vim.inspect(result), "\n"))
    vim.bo[buf].filetype = "lua"
    vim.bo[buf].modifiable = false
  end, vim.api.nvim_get_current_buf())
  if not ok then
    vim.notify("laya: no laya-lsp client is running", vim.log.levels.WARN)
  end
end

--- :LayaCodeAction: the code actions laya offers at the cursor (or for the visual range).
function M.code_action(range)
  local ids = {}
  for _, c in ipairs(M.clients(vim.api.nvim_get_current_buf())) do
    ids[c.id] = true
  end
  vim.lsp.buf.code_action({
    range = range,
    -- 0.10+ passes the client id; older versions only the action, where every client's actions are listed.
    filter = function(_, client_id)
      return client_id == nil or ids[client_id] == true
    end,
  })
end

local function notify(client, method, params)
  if has("0.11") then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function stopped(client)
  if has("0.11") then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- Send `laya/focus` (the buffer and the cursor's position, in the client's position encoding) to `client` now.
function M.send_focus(client, bufnr)
  if vim.api.nvim_get_current_buf() ~= bufnr or stopped(client) then
    return
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  notify(client, "laya/focus", { textDocument = params.textDocument, position = params.position })
end

-- Tell the server where the cursor rests: on entering the buffer and after cursor moves that are not typing (a
-- move that comes with a new changedtick is the cursor following an edit; the completion request covers that).
local function track_focus(client, bufnr, delay)
  local timer = vim.loop.new_timer()
  local tick = vim.b[bufnr].changedtick
  local group = vim.api.nvim_create_augroup("laya_focus_" .. bufnr, { clear = true })
  local function schedule()
    timer:stop()
    timer:start(delay, 0, vim.schedule_wrap(function()
      M.send_focus(client, bufnr)
    end))
  end
  vim.api.nvim_create_autocmd({ "CursorMoved", "CursorMovedI" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      local now = vim.b[bufnr].changedtick
      if now ~= tick then
        tick = now
        timer:stop()
        return
      end
      schedule()
    end,
  })
  vim.api.nvim_create_autocmd("BufEnter", { group = group, buffer = bufnr, callback = schedule })
  local function stop()
    timer:stop()
    if not timer:is_closing() then
      timer:close()
    end
    pcall(vim.api.nvim_del_augroup_by_id, group)
  end
  vim.api.nvim_create_autocmd("BufUnload", { group = group, buffer = bufnr, callback = stop })
  vim.api.nvim_create_autocmd("LspDetach", {
    group = group,
    buffer = bufnr,
    callback = function(args)
      if args.data == nil or args.data.client_id == client.id then
        stop()
      end
    end,
  })
  schedule()
end

local function map(bufnr, mode, lhs, rhs, desc, expr)
  if lhs then
    vim.keymap.set(mode, lhs, rhs, { buffer = bufnr, desc = "laya: " .. desc, expr = expr or false, silent = true })
  end
end

function M.on_attach(client, bufnr)
  local cfg = M.config
  local km = cfg.keymaps or {}
  local inline = cfg.inline and vim.lsp.inline_completion ~= nil
    and supports(client, "textDocument/inlineCompletion")
  if inline then
    vim.lsp.inline_completion.enable(true, { bufnr = bufnr })
    map(bufnr, "i", km.accept_inline, function()
      if not vim.lsp.inline_completion.get() then
        return km.accept_inline
      end
    end, "accept the ghost-text completion", true)
    map(bufnr, "i", km.next_inline, function()
      vim.lsp.inline_completion.select({ count = 1 })
    end, "next ghost-text candidate")
  end
  if cfg.completion and vim.lsp.completion ~= nil and vim.lsp.completion.enable ~= nil then
    vim.lsp.completion.enable(true, client.id, bufnr, { autotrigger = cfg.autotrigger })
  else
    vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
  end
  if cfg.focus_ms then
    track_focus(client, bufnr, cfg.focus_ms)
  end
  map(bufnr, "n", km.stats, M.show_stats, "show laya/stats")
  map(bufnr, { "n", "x" }, km.code_action, function()
    M.code_action()
  end, "code actions")
  if cfg.on_attach then
    cfg.on_attach(client, bufnr)
  end
end

local function root_dir(bufnr, markers)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local start = path ~= "" and vim.fs.dirname(path) or vim.loop.cwd()
  local found = vim.fs.find(markers, { upward = true, path = start })[1]
  return found and vim.fs.dirname(found) or start
end

local function client_config(cfg)
  return {
    name = M.name,
    cmd = cfg.cmd,
    init_options = as_object(cfg.settings),
    settings = { laya = as_object(cfg.settings) },
    on_attach = M.on_attach,
  }
end

local function create_commands()
  vim.api.nvim_create_user_command("LayaStats", M.show_stats, { desc = "laya: show laya/stats" })
  vim.api.nvim_create_user_command("LayaCodeAction", function(a)
    local range = nil
    if a.range > 0 then
      range = { start = { a.line1, 0 }, ["end"] = { a.line2, 2 ^ 31 - 1 } }
    end
    M.code_action(range)
  end, { range = true, desc = "laya: code actions at the cursor or for the range" })
  vim.api.nvim_create_user_command("LayaRestart", function()
    for _, c in ipairs(M.clients()) do
      if has("0.11") then
        c:stop()
      else
        c.stop()
      end
    end
    vim.defer_fn(function()
      vim.cmd("edit")
    end, 500)
  end, { desc = "laya: restart laya-lsp" })
end

--- Configure and enable the laya language server. Call once, e.g. from init.lua.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  local cfg = M.config
  if opts and opts.keymaps == false then
    cfg.keymaps = {}
  end
  if opts and opts.settings then
    cfg.settings = opts.settings -- replace, not merge: an empty table means "server defaults"
  end
  create_commands()

  if vim.lsp.config ~= nil and vim.lsp.enable ~= nil then
    local c = client_config(cfg)
    c.filetypes = cfg.filetypes
    c.root_markers = cfg.root_markers
    vim.lsp.config(M.name, c)
    vim.lsp.enable(M.name)
    return
  end

  local group = vim.api.nvim_create_augroup("laya_lsp", { clear = true })
  local function start(bufnr)
    if vim.bo[bufnr].buftype ~= "" then
      return
    end
    local c = client_config(cfg)
    c.root_dir = root_dir(bufnr, cfg.root_markers)
    vim.lsp.start(c, { bufnr = bufnr })
  end
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = cfg.filetypes,
    callback = function(args)
      start(args.buf)
    end,
  })
  -- Buffers already open when setup() runs late (e.g. lazy-loaded plugins).
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(cfg.filetypes, vim.bo[bufnr].filetype) then
      start(bufnr)
    end
  end
end

return M
