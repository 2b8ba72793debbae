"""Where the reports are: resolve a user's PATH to the reports and bench directories."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

REGRESSION_FILES = ("regression_latest.json", "regression_latest.csv", "regression_latest.md")
STATE_FILES = ("kernel_state_matrix_latest.json", "kernel_state_matrix_latest.md")
# Older summary kinds (ptotui.model.read.parity), read when there is no regression_latest.*.
OLDER_FILES = (
    "regression_parity_latest.json",
    "regression_parity_latest.md",
    "kernel_parity_latest.json",
    "kernel_parity_latest.md",
)
STAMP = re.compile(r"^\d{8}T\d{6}Z$")  # a run directory's name, a snapshot's or summary's stamp (UTC)
SNAPSHOT = re.compile(r"^kernel_state_matrix_(\d{8}T\d{6}Z)\.(json|md)$")
_GENERATED = re.compile(r"(?:^|/)(?:bench/)?(generated/.+)$")


def bundled_samples() -> Path:
    """The sample bench tree shipped with the package (or beside it in a checkout)."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "sample_reports" / "bench", here.parent / "sample_reports" / "bench"):
        if candidate.is_dir():
            return candidate
    return here / "sample_reports" / "bench"


@dataclass(frozen=True)
class Location:
    """The reports directory and the bench directory around it."""

    reports: Path
    bench: Path

    @property
    def gap_board(self) -> Path:
        return self.bench / "gap_board.yaml"

    @property
    def inventory(self) -> Path:
        return self.bench / "kernel_inventory.yaml"

    @property
    def generated(self) -> Path:
        return self.bench / "generated"

    def watched_files(self) -> list[Path]:
        """The files whose change means a reload (snapshots are read lazily)."""
        names = REGRESSION_FILES + STATE_FILES + OLDER_FILES
        return [self.reports / n for n in names] + [self.gap_board, self.inventory]

    def snapshots(self) -> list[Path]:
        """Timestamped state-matrix snapshots, oldest first, JSON preferred over markdown."""
        try:
            names = [p.name for p in self.reports.iterdir()]
        except OSError:
            return []
        chosen: dict[str, str] = {}
        for name in names:
            match = SNAPSHOT.match(name)
            if match and (match.group(1) not in chosen or match.group(2) == "json"):
                chosen[match.group(1)] = name
        return [self.reports / chosen[stamp] for stamp in sorted(chosen)]

    def local_report(self, report_path: str | None) -> Path | None:
        """Resolve a report.json path written on another host by its generated/... suffix."""
        if not report_path:
            return None
        match = _GENERATED.search(report_path.replace("\\", "/"))
        if not match:
            return None
        candidate = self.bench / match.group(1)
        return candidate if ".." not in Path(match.group(1)).parts else None


def locate(path: str | Path | None = None, cwd: Path | None = None) -> Location:
    """Resolve PATH: a reports directory, a bench directory, or a checkout root.

    Without PATH: ``./bench/reports`` when it exists, else the bundled samples.
    A PATH that does not exist (yet) is taken as a reports directory, or as a
    bench directory when it is named ``bench``. A bench directory with ``results/`` and no
    ``reports/`` (a new bench host before the generators ran) is one too: its reports
    directory is where the summary will be.
    """
    if path is None or str(path) == "":
        base = (cwd or Path.cwd()) / "bench"
        if _is_bench(base):
            return Location(base / "reports", base)
        samples = bundled_samples()
        return Location(samples / "reports", samples)
    target = Path(path).expanduser()
    target = target if target.is_absolute() else (cwd or Path.cwd()) / target
    if _is_bench(target / "bench"):
        return Location(target / "bench" / "reports", target / "bench")
    if _is_bench(target) or target.name == "bench":
        return Location(target / "reports", target)
    return Location(target, target.parent)


def _is_bench(path: Path) -> bool:
    """A bench directory: it has the reports, or the bench runs before any report."""
    return (path / "reports").is_dir() or (path / "results").is_dir()


def looks_like_reports(location: Location) -> bool:
    return any(_there(location.reports / name) for name in REGRESSION_FILES + STATE_FILES + OLDER_FILES)


def _there(path: Path) -> bool:
    """Something is at ``path``, readable or not (``Path.exists`` raises PermissionError
    in a directory that cannot be searched, and says False for a symlink loop)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True
