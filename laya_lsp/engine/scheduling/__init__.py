"""Scheduling: the one inference worker that owns MLX (latest-wins, debounce, a fair queue, batched rounds)
and the model work handle decisions get on it. Used inside engine/ only."""
