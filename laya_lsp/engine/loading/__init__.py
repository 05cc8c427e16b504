"""Loading: a checkpoint's weights and tokenizer read without transformers, its fill-in-the-middle format, the
loaded model (`model.LoadedModel`) and its warm-up. Used inside engine/ only; callers go through
`laya_lsp.engine`."""
