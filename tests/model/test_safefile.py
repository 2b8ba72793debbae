"""Report files that are not files: FIFOs, devices, directories, and files over the cap."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ptotui.model.live.source import StableSource
from ptotui.model.location import Location
from ptotui.model.read import safefile
from ptotui.model.read.loader import load, read_file
from ptotui.model.types import ReadWarning


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Callable[[Path], Path]]:
    """Make FIFOs; on teardown open each one's write end so that a reader stuck in open() is let go."""
    made: list[Path] = []

    def make(path: Path) -> Path:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.mkfifo(path)
        made.append(path)
        return path

    yield make
    for path in made:
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def within(seconds: float, func: Callable[[], Any]) -> Any:
    """func() on a daemon thread; fails (instead of hanging the suite) when it does not return in time."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = func()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 3_000_000)
    assert safefile.read_bytes(path) == b"x" * 3_000_000


def test_a_fifo_is_refused_without_blocking(tmp_path: Path, fifo) -> None:
    path = fifo(tmp_path / "regression_latest.json")
    with pytest.raises(safefile.FileRefused, match="FIFO"):
        within(10, lambda: safefile.read_bytes(path))
    warnings: list[ReadWarning] = []
    assert within(10, lambda: read_file(path, warnings)) is None
    assert "FIFO" in warnings[0].message


def test_a_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.symlink_to("/dev/zero")
    with pytest.raises(safefile.FileRefused, match="character device"):
        within(10, lambda: safefile.read_bytes(path))


def test_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(safefile.FileRefused, match="directory"):
        safefile.read_bytes(tmp_path / "d")


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(safefile.FileRefused, match="cap"):
        safefile.read_bytes(path, max_bytes=1000)
    assert safefile.read_bytes(path, max_bytes=1001) == b"x" * 1001


def test_the_cap_is_set_once_for_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 2 * 1024 * 1024)
    before = safefile.max_file_bytes()
    try:
        safefile.set_max_file_mb(1)
        warnings: list[ReadWarning] = []
        assert read_file(path, warnings) is None and "1 MB cap" in warnings[0].message
    finally:
        safefile.set_max_file_mb(before / 1024 / 1024)
    with pytest.raises(ValueError):
        safefile.set_max_file_mb(0)


def test_live_source_falls_back_to_the_twins_when_the_json_becomes_a_fifo(sample_location: Location, fifo) -> None:
    """A FIFO as regression_latest.json hung the loader thread for ever."""
    source = StableSource(sleep=lambda _: None)
    assert len(load(sample_location, source=source).kernels) == 15
    fifo(sample_location.reports / "regression_latest.json")
    reports = within(20, lambda: load(sample_location, source=source))
    assert len(reports.kernels) == 15  # from the CSV and markdown twins
    assert any("FIFO" in w.message and w.file.endswith("regression_latest.json") for w in reports.warnings)
    assert any(f.endswith(("regression_latest.csv", "regression_latest.md")) for f in reports.files_read)
