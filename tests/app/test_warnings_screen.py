"""The warnings box says how many it does not show, and ``W`` lists every warning in full."""

from __future__ import annotations

import os
from pathlib import Path

from textual.geometry import Region

from ptotui.app.screens.warnings import WarningsScreen
from ptotui.model.location import Location
from ptotui.model.present.warnlist import RUNS, SETTINGS, TRIAGE, box_count, current_warnings, more_line
from ptotui.model.types import ReadWarning
from tests.helpers import build, build_with_settings, loaded, until
from tests.runtree import write_run

STAMP = "20261120T010000Z"  # before the samples' summary: no row changes, only the warnings


def _bad_runs(bench: Path) -> list[Path]:
    """Six run directories a user finds wrong, each in its own kernel directory."""
    made = []
    for number in range(6):
        made.append(write_run(bench, "norm", f"tile_bad{number}", STAMP, [(0.1, 0.2)]))
    made[0].write_text("hello not json", encoding="utf-8")
    made[1].write_text('{"name": "tile_bad1", "pto": {"benchm', encoding="utf-8")  # torn
    made[2].unlink()
    os.mkfifo(made[2])
    made[3].unlink()
    made[3].symlink_to(made[4])
    made[4].write_text("", encoding="utf-8")
    made[5].write_text("[1, 2]", encoding="utf-8")
    return made


def _box_lines(app) -> list[str]:
    widget = app.main.query_one("#warnings")
    region = Region(0, 0, widget.size.width, widget.size.height)
    return ["".join(segment.text for segment in strip).rstrip() for strip in widget.render_lines(region)]


def test_the_box_shows_what_fits_and_counts_the_rest() -> None:
    assert [box_count(n) for n in (0, 4, 5, 6, 60)] == [0, 4, 5, 4, 4]
    assert more_line(2, "W") == "… and 2 more not shown: W lists every warning"


def test_every_warning_is_listed_with_where_it_comes_from(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    reports = [ReadWarning(str(bench / "results/norm/k/x/report.json"), "torn"), ReadWarning("a.json", "bad", 3)]
    entries = current_warnings(reports, [ReadWarning("t.json", "not JSON")], "unknown key", {"a.json": 5.0}, bench)
    assert [(e.origin, e.where()) for e in entries][:3] == [
        (RUNS, str(bench / "results/norm/k/x/report.json")),
        ("reports", "a.json:3"),
        (TRIAGE, "t.json"),
    ]
    assert entries[1].since == 5.0 and entries[3].origin == SETTINGS and entries[3].message == "unknown key"


async def test_six_bad_runs_the_box_counts_what_it_hides_and_w_lists_them_all(sample_location: Location) -> None:
    bad = _bad_runs(sample_location.bench)
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: len(app.main.current_warnings()) >= 6)
        warnings = app.main.current_warnings()
        lines = [line for line in _box_lines(app) if line.strip()]
        assert len(lines) == 5  # four warnings, one line each, and the count of the rest: all in view
        assert lines[-1].strip() == f"… and {len(warnings) - 4} more not shown: W lists every warning"
        await pilot.press("W")
        await until(pilot, lambda: isinstance(app.screen, WarningsScreen))
        screen = app.screen
        assert len(screen.entries) == len(warnings)
        listed = " ".join(str(w.render()) for w in screen.query(".warning-entry"))
        for path in bad:
            assert path.parent.name in listed and "tile_bad" in listed
        assert all(e.origin == RUNS for e in screen.entries if "tile_bad" in e.file)
        await pilot.press("end")  # the list scrolls
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main)


async def test_a_remapped_warnings_key_is_the_one_the_box_names_and_opens_the_list(sample_location, tmp_path):
    _bad_runs(sample_location.bench)
    app = build_with_settings(sample_location, tmp_path, '[keys]\nmain.warnings = "E"\nwarnings.dismiss = "x"\n')
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: len(app.main.current_warnings()) >= 6)
        assert _box_lines(app)[-1].strip().endswith("more not shown: E lists every warning")
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, WarningsScreen))
        hint = str(app.screen.query_one("#warnings-hint").render())
        assert hint.startswith("tab: next warning · x: dismiss") and hint.endswith(" · esc / q / W: back")


# A name that would set the terminal's title, and one that would turn it red: shown as typed,
# escapes written out (as the CLI does), so the file can be found; never sent to the terminal.
TITLE_NAME = "debug\x1b]0;owned\x07"
RED_NAME = "link\x1b[31m"
CONTROLS = set(map(chr, range(0x20))) | set(map(chr, range(0x7F, 0xA0)))


def _odd_names(bench: Path) -> Path:
    kernel = write_run(bench, "norm", "tile_odd", STAMP, [(0.1, 0.2)]).parent.parent
    (kernel / TITLE_NAME).mkdir()
    (kernel / RED_NAME).symlink_to(kernel / STAMP)
    return kernel


def test_a_warnings_file_and_the_names_it_lists_are_shown_escaped(tmp_path: Path) -> None:
    from ptotui.model.bench.runs import read_runs

    kernel = _odd_names(tmp_path / "bench")
    entries = current_warnings(read_runs(tmp_path / "bench").warnings, bench=tmp_path / "bench")
    where = {entry.where(): entry.message for entry in entries}
    assert f"{kernel}/link\\x1b[31m" in where
    assert "debug\\x1b]0;owned\\x07" in where[str(kernel)]
    assert not CONTROLS & set("".join(where) + "".join(where.values()))
    assert ReadWarning("a\x1bb", "x", 2).shown() == "a\\x1bb:2: x"


async def test_the_box_and_w_show_odd_names_escaped_and_send_no_control(sample_location: Location) -> None:
    _odd_names(sample_location.bench)
    app = build(sample_location)
    async with app.run_test(size=(300, 30)) as pilot:  # wide enough for a long temporary path
        await loaded(pilot, 15)
        await until(pilot, lambda: len(app.main.current_warnings()) >= 2)
        box = "\n".join(_box_lines(app))
        assert "link\\x1b[31m: " in box and "debug\\x1b]0;owned\\x07" in box, box
        assert not CONTROLS - {"\n"} & set(box)
        await pilot.press("W")
        await until(pilot, lambda: isinstance(app.screen, WarningsScreen))
        listed = "\n".join(str(w.render()) for w in app.screen.query(".warning-entry"))
        assert "link\\x1b[31m\n" in listed and "debug\\x1b]0;owned\\x07" in listed, listed
        assert not CONTROLS - {"\n"} & set(listed)


def _probe_warned(app, name: str) -> bool:
    return any(name in w.message for w in app.main.current_warnings())


async def test_w_dismisses_a_standing_warning_from_the_box_until_its_text_changes(sample_location: Location) -> None:
    """Issue 40 (19): a warning that stands for good (the real tree's ``debug_probe*``
    directories) took a line of the 80×24 screen for the whole session."""
    write_run(sample_location.bench, "norm", "tile_probe", STAMP, [(0.1, 0.2)])
    kernel_dir = sample_location.bench / "results" / "norm" / "tile_probe"
    (kernel_dir / "debug_probe").mkdir()
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        box = app.main.query_one("#warnings")
        await until(pilot, lambda: _probe_warned(app, "debug_probe") and box.display)
        assert [line for line in _box_lines(app) if line.strip()][0].startswith(" !  since")  # a line of 80×24
        await pilot.press("W")
        await until(pilot, lambda: isinstance(app.screen, WarningsScreen))
        screen = app.screen
        assert isinstance(screen, WarningsScreen) and len(screen.entries) == 1
        await pilot.press("d")
        await until(pilot, lambda: "dismissed" in str(screen.query_one(".warning-head").render()))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main and not box.display)  # the line is the table's again
        assert len(app.main.current_warnings()) == 1  # still standing: W lists it
        (kernel_dir / "debug_probe2").mkdir()  # its text changes: a new warning, shown
        await pilot.press("r")
        await until(pilot, lambda: _probe_warned(app, "debug_probe2") and box.display)
        await pilot.press("W")
        await until(pilot, lambda: isinstance(app.screen, WarningsScreen))
        again = app.screen
        assert isinstance(again, WarningsScreen)
        assert "dismissed" not in str(again.query_one(".warning-head").render())
        await pilot.press("d")  # dismissed again, then shown again by a second d
        await until(pilot, lambda: not box.display)
        await pilot.press("d")
        await until(pilot, lambda: box.display)


def test_standing_leaves_out_only_the_dismissed_text() -> None:
    from ptotui.model.present.warnlist import standing

    entries = current_warnings([ReadWarning("a.json", "bad"), ReadWarning("b.json", "torn", 2)])
    assert standing(entries, {("a.json", None, "bad")}) == entries[1:]
    assert standing(entries, {("a.json", None, "worse")}) == entries  # another text: a new warning
    assert standing(entries, set()) == entries
