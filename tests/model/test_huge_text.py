"""Huge text in the model helpers the UI calls on every key: cost must not grow with the text."""

from __future__ import annotations

import gc
import random
import tracemalloc

from ptotui.model.present import view
from ptotui.model.read.longtext import clip
from ptotui.model.text import one_line
from ptotui.model.types import Kernel, Variant


def test_one_line_with_a_limit_folds_only_the_head():
    text = "word \n" * 5_000_000  # 30 MB, five million words
    tracemalloc.start()
    try:
        assert one_line(text, 80) == ("word " * 16)[:79] + "…"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # folding all of it made five million strings


def test_one_line_with_a_limit_gives_what_folding_everything_gives():
    rng = random.Random(7)  # noqa: S311 - test data, not secrets
    for _ in range(2_000):
        text = "".join(rng.choice(["a", "b", " ", "\n", "\t", "  "]) for _ in range(rng.randrange(0, 120)))
        limit = rng.randrange(1, 60)
        folded = " ".join(text.split())
        expected = folded[: limit - 1] + "…" if len(folded) > limit else folded
        assert one_line(text, limit) == expected, (text, limit)


def test_the_filter_lowercases_a_kernels_text_once_not_at_every_key():
    reason = "X" * 1_000_000
    kernel = Kernel(name="k", baseline_reason=reason, variants=[Variant(baseline_reason=reason) for _ in range(3)])
    first = view.haystack(kernel)
    assert view.haystack(kernel) is first  # kept, not rebuilt
    assert len(first) < 1_100_000  # the reason once, not once per variant
    assert view.matches(kernel, "xxx") and not view.matches(kernel, "yyy")
    other = Kernel(name="k", baseline_reason="changed")
    assert "changed" in view.haystack(other)
    before = len(view._HAYSTACKS)
    del kernel, other, first
    gc.collect()
    assert len(view._HAYSTACKS) <= before - 2  # forgotten with their kernels


def test_clip_cuts_to_a_screenful():
    text = "\n".join(f"line {i}" for i in range(100_000))
    clipped = clip(text, rows=30, width=100)
    assert clipped.shown.splitlines() == [f"line {i}" for i in range(30)]
    assert clipped.hidden_lines == 99_970 and clipped.note() == "… 99,970 more lines"
    one = clip("x" * 50_000_000, rows=30, width=100)
    assert one.shown == "x" * 3_000 and one.note() == f"… {50_000_000 - 3_000:,} more characters"
    assert clip("short\ntext", 30, 100) == clip("short\ntext", 30, 100) and not clip("short\ntext", 30, 100).cut
    folded = clip("y" * 250 + "\nnext", rows=3, width=100)  # a long line folds into three rows
    assert folded.shown == "y" * 250 and folded.hidden_lines == 1 and folded.cut


def test_clip_cuts_a_line_after_its_last_whole_word():
    """Issue 24: the detail at 80x24 ended "…expert addend and val", cut mid-word."""
    text = "the second shared expert addend and validates the documented contract " * 20
    clipped = clip(text, rows=2, width=50)
    assert clipped.cut and len(clipped.shown) <= 100
    assert text.startswith(clipped.shown) and text[len(clipped.shown)] == " "  # whole words
    assert clipped.hidden_chars == len(text) - len(clipped.shown)
    word = clip("x" * 500, rows=2, width=50)  # one word longer than the room: cut where it ends
    assert word.shown == "x" * 100
    dump = clip("[ERROR] " + "x" * 500, rows=2, width=50)  # a word longer than a row, after a space
    assert dump.shown == ("[ERROR] " + "x" * 500)[:100]
