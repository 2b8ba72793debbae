"""Textual's footer key (private API): imported with ptotui's footer, which is mounted after
the first frame, so Textual's footer module stays off the way to it (tests/cli/test_startup_imports.py)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

__all__ = ["FooterKey"]
