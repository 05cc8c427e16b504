"""Systems measured side by side with laya-lsp on the same prompts: laya itself, the naive mlx-lm peer, llama.cpp."""
