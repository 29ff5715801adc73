"""Reusable widgets of the table screen; each keeps its own small DEFAULT_CSS."""
