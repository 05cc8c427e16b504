"""Decoding: the compiled fixed-shape step and the model adapters over it, the decode core's step coroutines
(prefill, k branches, drafts verified in the step), stop rules, name steering, token healing,
log-probabilities and the scoring primitives decisions use. Used inside engine/ only."""
