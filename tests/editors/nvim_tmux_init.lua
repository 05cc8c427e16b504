-- init.lua for Neovim under tmux (tests/test_editor_nvim.py): the laya plugin as a user would set it up, with the
-- completion popup opening as you type. Env: LAYA_PLUGIN_DIR, LAYA_SERVER_CMD (JSON list), LAYA_SETTINGS (JSON).
vim.opt.rtp:prepend(vim.env.LAYA_PLUGIN_DIR)
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.completeopt = "menuone,noselect,popup"
require("laya").setup({
  cmd = vim.json.decode(vim.env.LAYA_SERVER_CMD),
  settings = vim.json.decode(vim.env.LAYA_SETTINGS),
  autotrigger = true,
})
