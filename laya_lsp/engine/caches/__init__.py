"""Caches: one mlx-lm prompt cache per document (longest-common-prefix reuse, exact trimming, LRU by bytes)
and the sliding context windows that keep the start of each document's prompt stable. Used inside engine/
only."""
