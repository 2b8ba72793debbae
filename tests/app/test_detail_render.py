"""The detail's content drawn from values, without an app: what the detail screen shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from ptotui.app.render import detail_parts
from ptotui.app.render.detail import detail, full_text, report_part
from ptotui.app.render.detail_parts import HISTORY_LINES
from ptotui.model.history.snapshots import History, Point
from ptotui.model.location import Location
from ptotui.model.read.loader import load
from ptotui.model.triage import Entry, Status
from ptotui.model.types import Kernel, ReadWarning
from tests.conftest import SAMPLES

NO_TRIAGE = Status(None, False, False)


@pytest.fixture(scope="module")
def kernels() -> dict[str, Kernel]:
    return load(Location(SAMPLES / "reports", SAMPLES)).by_name()


def lines(renderable: RenderableType, width: int) -> list[str]:
    console = Console(width=width, color_system=None, legacy_windows=False)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get().splitlines()


def history_of(kernel: Kernel, points: int) -> History:
    stamps = [f"2026-01-{day + 1:02d}" for day in range(points)]
    rows = [
        Point(stamp, kernel.klass, "ok", "ok", 40.0 + day, 50.0 + day, 45.0 + day, "mid")
        for day, stamp in enumerate(stamps)
    ]
    return History(stamps, {kernel.name: rows}, [], [])


def test_a_blocker_leads_with_its_triage_what_blocks_it_and_its_gaps(kernels):
    blocker = next(k for k in kernels.values() if k.tier == "pto-blocked" and k.gap_ids)
    text = lines(detail(blocker, NO_TRIAGE, None, "en", 100), 96)
    order = [
        next(i for i, line in enumerate(text) if line == heading) for heading in ("Triage", "What blocks it", "Gaps")
    ]
    assert order == sorted(order) and order[-1] < next(i for i, line in enumerate(text) if line == "Facts")
    assert any("untriaged: no one has looked at this blocker yet" in line for line in text)
    assert sum(line == "Gaps" for line in text) == 1  # not a second time after the reasons


def test_a_working_kernel_has_no_triage_section_and_its_gaps_after_the_reasons(kernels):
    working = next(k for k in kernels.values() if k.tier in ("high", "mid") and not k.gap_ids)
    text = lines(detail(working, NO_TRIAGE, None, "en", 100), 96)
    assert "Triage" not in text and "What blocks it" not in text
    assert text.index("Reasons and limitations") < text.index("Gaps")
    assert "History" not in text  # no history read (yet): no section


def test_a_triage_entry_shows_state_who_since_and_the_note(kernels):
    blocker = next(k for k in kernels.values() if k.tier == "pto-blocked")
    entry = Entry(blocker.name, "investigating", "looking at the lowering", "2026-01-02", "ana", {})
    text = "\n".join(lines(detail(blocker, Status(entry, True, False), None, "en", 100), 96))
    assert "investigating" in text and "by ana   since 2026-01-02" in text
    assert "note: looking at the lowering" in text and "stale: the blocker changed since it was triaged" in text


def test_the_headings_follow_the_language(kernels):
    kernel = next(iter(kernels.values()))
    zh = lines(detail(kernel, NO_TRIAGE, None, "zh", 100), 96)
    en = lines(detail(kernel, NO_TRIAGE, None, "en", 100), 96)
    assert "概况" in zh and "Facts" not in zh
    assert "Facts" in en and "概况" not in en


def test_history_lists_the_newest_snapshots_then_now_and_all_of_them_on_h(kernels):
    kernel = next(iter(kernels.values()))
    history = history_of(kernel, HISTORY_LINES + 3)
    few = lines(detail(kernel, NO_TRIAGE, history, "en", 100), 96)
    assert any(f"{HISTORY_LINES} of {HISTORY_LINES + 3} snapshots, then now (h: all)" in line for line in few)
    assert not any("2026-01-01" in line for line in few) and any("2026-01-15" in line for line in few)
    assert any(line.strip().startswith("now") for line in few)
    every = lines(detail(kernel, NO_TRIAGE, history, "en", 100, full_history=True), 96)
    assert any(f"all {HISTORY_LINES + 3} snapshots, then now (h: fewer)" in line for line in every)
    assert any("2026-01-01" in line for line in every)
    short = lines(detail(kernel, NO_TRIAGE, history_of(kernel, 3), "en", 100), 96)
    assert any("3 snapshots, then now" in line for line in short)
    assert not any("h: all" in line or "h: fewer" in line for line in short)


def test_history_rows_never_wrap_back_to_column_0(kernels):
    kernel = max(kernels.values(), key=lambda k: len(k.klass or ""))
    text = lines(detail(kernel, NO_TRIAGE, history_of(kernel, 3), "en", 80), 76)
    at = text.index("History")
    rows = text[at + 3 : text.index("Variants") - 1]
    assert rows and all(row.startswith("  ") and not row[2:3].isspace() or row[:18].isspace() for row in rows), rows


def test_the_reading_wraps_under_itself_not_at_column_0(kernels):
    text = lines(detail(kernels["fp8_blockwise_quant"], NO_TRIAGE, None, "en", 80), 76)
    at = next(i for i, line in enumerate(text) if line.startswith("  Look next:"))
    assert text[at + 1].strip(), text[at : at + 2]  # the line is long enough to wrap at 76
    assert text[at + 1].startswith("  "), text[at : at + 2]


def _variants(kernel: Kernel, width: int) -> list[str]:
    text = lines(detail(kernel, NO_TRIAGE, None, "en", width), width - 4)
    return text[text.index("Variants") + 1 : text.index("Reasons and limitations")]


def test_variant_limitations_are_never_cut_mid_word_at_80_columns(kernels):
    """The Variants' limitations column was a few cells wide at 80 columns: "group-scale" / "d"."""
    kernel = kernels["int4_weight_dequant_gemm"]
    words = {w for v in kernel.variants for item in v.limitations for w in item.split()}
    assert any(len(w) > 10 for w in words)
    shown = _variants(kernel, 80)
    assert all(len(line.rstrip()) <= 76 for line in shown)
    tokens = {t for line in shown for t in line.replace("│", " ").split()}
    assert words <= tokens, sorted(words - tokens)
    assert any(line.startswith("limitations:") for line in shown)  # under the table


def test_variant_limitations_keep_their_column_when_wide(kernels):
    shown = _variants(kernels["int4_weight_dequant_gemm"], 160)
    assert "limitations" in shown[0] + shown[1]
    assert any("│ baseline dequant uses" in line for line in shown)


def test_a_long_reason_shows_a_screenful_and_says_e_pages_the_rest(kernels):
    kernel = next(k for k in kernels.values() if k.pto_reason)
    import dataclasses

    long = dataclasses.replace(kernel, pto_reason="\n".join(f"line {i}" for i in range(200)))
    text = lines(detail(long, NO_TRIAGE, None, "en", 80, height=24), 76)
    assert "line 10" in text and "line 150" not in text
    assert any("`e` opens it in $PAGER" in line for line in text)
    assert "line 199" in full_text(long)


def test_the_report_part_reading_missing_and_read(tmp_path):
    assert lines(report_part(None, "en", 100, tmp_path), 96) == ["", "report.json", "reading…"]
    missing = lines(report_part((None, None, {}, [ReadWarning("w1", "bad")]), "en", 100, tmp_path / "generated"), 96)
    assert missing[2].startswith("not found under") and missing[-1] == "w1: bad"
    facts = {"pto": {"timings_ms": {"min": 1.0, "median": 2.0, "max": 3.0}, "passes": True}, "device": {"npu": "x"}}
    path = tmp_path / "generated" / "k" / "report.json"
    read = "\n".join(lines(report_part((path, "{}", facts, []), "en", 100, tmp_path), 96))
    assert "pto timings ms" in read and "passes yes" in read and "npu=x" in read and "report.json" in read


def test_the_report_part_shows_a_files_control_characters_escaped(tmp_path):
    """A kernel directory named to set the terminal's title: written out, so it can be found."""
    path = tmp_path / "k\x1b]0;owned\x07" / "report.json"
    warning = ReadWarning(str(path), "expected a JSON object\x1b[2J")
    read = "\n".join(lines(report_part((path, "[]", {}, [warning]), "en", 300, tmp_path), 296))
    assert read.count("k\\x1b]0;owned\\x07/report.json") == 2 and "JSON object[2J" not in read, read
    assert "\x1b" not in read and "\x07" not in read


def test_a_long_path_is_cut_from_the_left_keeping_its_file_name():
    path = ".venv/lib/python3.11/site-packages/ptotui/sample_reports/bench/generated/quant/k/report.json"
    cut = detail_parts.left_cut(path, 52)
    assert cut.startswith("…/") and cut.endswith("/k/report.json") and len(cut) <= 52
    assert path.endswith(cut[2:])
    assert detail_parts.left_cut("a/report.json", 52) == "a/report.json"
    assert detail_parts.left_cut("x" * 60 + "/report.json", 10) == "…/report.json"


def test_report_text_is_shown_as_typed(tmp_path):
    facts = {"pto": {"entrypoint": "[bold]x\x1b[31m"}}
    text = "\n".join(lines(report_part((Path("r.json"), "{}", facts, []), "en", 100, tmp_path), 96))
    assert "[bold]x" in text and "\x1b" not in text


def test_what_moved_says_which_side_moved_and_that_a_baseline_speed_up_is_no_regression(kernels):
    import copy

    from ptotui.model.core.diff import kernel_changes
    from ptotui.model.core.noise import no_noise

    before = next(k for k in kernels.values() if k.variants and all(v.baseline_ms and v.pto_ms for v in k.variants))
    after = copy.deepcopy(before)
    for variant in after.variants:  # the baseline 40% faster, PTO as it was
        assert variant.baseline_ms is not None and variant.pto_ms is not None
        variant.baseline_ms *= 0.6
        variant.ratio_pct = variant.baseline_ms / variant.pto_ms * 100
    after.ratio_median_pct = (before.ratio_median_pct or 0) * 0.6
    changes = kernel_changes(before, after, noise=no_noise())
    moved = [c for c in changes if c.kind in ("ratio", "tier")]
    assert moved and not any(c.regression for c in moved)
    drawn = "\n".join(lines(detail(after, NO_TRIAGE, None, "en", 160, moves=((), [(0.0, moved[0])], None)), 160))
    assert "What moved" in drawn
    words = " ".join(drawn.split())  # the line wraps at 160 columns
    assert "baseline −40.0% (beyond its ±10.0%)" in words and "not a PTO regression" in words
    # Without a move there is no such section.
    assert "What moved" not in "\n".join(lines(detail(after, NO_TRIAGE, None, "en", 160), 160))
    zh = "\n".join(lines(detail(after, NO_TRIAGE, None, "zh", 160, moves=(moved, (), "快照 20261101T000000Z")), 160))
    assert "哪一侧变了" in zh and "自快照 20261101T000000Z以来" in zh


def test_the_variants_go_by_their_run_directory_s_names_else_a_compact_form(kernels) -> None:
    """Issue 39 item 5: the variants were their shape summaries' JSON (a line of braces each)."""
    from dataclasses import replace

    from ptotui.model.types import Variant
    from tests.model.test_shapes import FUSED, FUSED_DIRS

    some = next(k for k in kernels.values() if k.variants and k.tier == "slow")
    variants = [Variant(shape, params, "ok", "ok", 0.18, 0.45) for shape, params in FUSED]
    kernel = replace(some, variants=variants)
    named = "\n".join(lines(detail(kernel, NO_TRIAGE, None, "en", 160, shape_dirs=FUSED_DIRS), 160))
    assert all(label in named for label in ("q16_k16_d16", "q64_k64_d64", "q32_k128_d128"))
    assert '"attention_out"' not in named and "{" not in named
    plain = "\n".join(lines(detail(kernel, NO_TRIAGE, None, "en", 160), 160))
    assert "attention_out 1×1×32×128" in plain and '"attention_out"' not in plain


def test_the_runs_say_where_the_newest_ran_and_where_the_environment_changed(kernels) -> None:
    """Issue 41 item 1: a toolkit upgrade in the middle of a kernel's runs is said on the run that
    first ran on the new one, and the newest run's environment above them."""
    from ptotui.model.bench.record import Run
    from ptotui.model.core.environment import as_text

    def run(stamp: str, toolkit: str) -> Run:
        where = as_text({"SoC": "ascend910b", "toolkit": toolkit})
        return Run("k", "f", stamp, None, "ok", "ok", 0.2, 0.4, 0.2, 0.2, 0.4, 0.4, 50.0, True, True, "p", (), where)

    runs = [run("20201101T000000Z", "8.5.0"), run("20201102T000000Z", "9.0.0"), run("20201103T000000Z", "9.0.0")]
    some = next(iter(kernels.values()))
    drawn = lines(detail(some, NO_TRIAGE, None, "en", 160, runs=runs), 160)
    [changed] = [line for line in drawn if "20201102T000000Z" in line]
    assert changed.rstrip().endswith("toolkit 8.5.0 → 9.0.0")
    assert not [line for line in drawn if "20201103T000000Z" in line and "→" in line]
    assert any("the newest ran on: SoC ascend910b; toolkit 9.0.0" in line for line in drawn)
