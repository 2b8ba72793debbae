from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from ptotui.model.location import Location
from tests import helpers

# No Hypothesis deadlines anywhere: a per-example time bound on a shared 2-core machine fails
# on noise (an import, another process), not on the code. Speed is measured in benchmarks/.
settings.register_profile("ptotui", deadline=None)
settings.load_profile("ptotui")

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_reports" / "bench"
REFERENCE = ROOT.parent / "shared" / "reference_reports" / "pto-kernels-20260321" / "bench"


@pytest.fixture(autouse=True)
def private_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the settings file of whoever runs the tests (subprocesses
    inherit the variable too)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("PTOTUI_LANG", raising=False)


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test starts in English whatever the locale of whoever runs the tests (a
    ``LANG=zh_CN.UTF-8`` shell would turn the app Chinese), subprocesses too; a test that
    switches the language leaves English behind it."""
    from ptotui.model import i18n

    for name in i18n.LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    i18n.set_language("en")
    yield
    i18n.set_language("en")


@pytest.fixture(autouse=True)
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Where helpers.build puts each app's triage file: under pytest's temporary
    directories, which it removes (a directory of /tmp per app piled up, ~300 a run)."""
    helpers.SCRATCH.append(tmp_path_factory.mktemp("apps"))
    yield
    helpers.SCRATCH.pop()


@pytest.fixture
def sample_bench(tmp_path: Path) -> Path:
    """A writable copy of the sample bench tree."""
    target = tmp_path / "bench"
    shutil.copytree(SAMPLES, target)
    return target


@pytest.fixture
def sample_location(sample_bench: Path) -> Location:
    return Location(sample_bench / "reports", sample_bench)


@pytest.fixture
def reference_bench() -> Path:
    if not REFERENCE.is_dir():
        pytest.skip("../shared/reference_reports is not here (only the developers' machines have it)")
    return REFERENCE
