"""laya-lsp: low-latency local code completions and decisions from an MLX model, one KV cache per buffer."""

__version__ = "0.1.0"
