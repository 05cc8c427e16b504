"""Decisions on top of the engine: closed-set choices with calibrated confidence (`decide`), schema-constrained
JSON (`structured`), model-driven code actions (`actions` lists, `resolve` computes) and the hand-off tier
(`fallback`). No LSP here: `laya_lsp/lsp/decision_handlers.py` maps these onto requests."""
