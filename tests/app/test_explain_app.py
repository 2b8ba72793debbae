"""The plain-words reading in the detail view."""

from __future__ import annotations

from ptotui.model.core.explain import fact_labels


def test_detail_facts_in_chinese_and_open_gaps_for_a_working_kernel(sample_location):
    from rich.console import Console

    from ptotui.app.render.detail import detail
    from ptotui.model.read.loader import load
    from ptotui.model.triage import Status

    kernel = load(sample_location).by_name()["selective_scan_fwd"]  # SLOW, with an open gap

    def rendered(lang: str) -> str:
        console = Console(width=116, color_system=None)
        with console.capture() as capture:
            console.print(detail(kernel, Status(None, False, False), None, lang, 120, height=36))
        return capture.get()

    english, chinese = rendered("en"), rendered("zh")
    assert "open gaps" in english and "dsl-scan-carry-surface" in english
    assert "\nlayer " not in english and "Open work, not a blocker" in english
    for key in ("tier", "class", "status", "correctness", "block_use", "inventory", "open_gaps"):
        assert fact_labels("zh")[key] in chinese, key
    assert "inventory status" not in chinese and "correctness (baseline / PTO)" not in chinese
