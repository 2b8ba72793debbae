from __future__ import annotations

import shutil
import tempfile
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


@pytest.fixture(scope="session")
def scratch_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory under pytest's temporary ones (which it removes) for the two below.
    Not ``tmp_path_factory.mktemp`` per test: each call lists the whole base directory to
    number the new one, so two a test made the run quadratic (seconds of tests/model alone)."""
    return tmp_path_factory.mktemp("scratch")


@pytest.fixture(autouse=True)
def private_settings(scratch_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the settings file of whoever runs the tests (subprocesses
    inherit the variable too)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="config-", dir=scratch_root))
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
def scratch(scratch_root: Path) -> Iterator[None]:
    """Where helpers.build puts each app's triage file: under pytest's temporary
    directories, which it removes (a directory of /tmp per app piled up, ~300 a run)."""
    helpers.SCRATCH.append(Path(tempfile.mkdtemp(prefix="apps-", dir=scratch_root)))
    yield
    helpers.SCRATCH.pop()


@pytest.fixture
def zh() -> Iterator[None]:
    """The test runs in Chinese (the autouse ``english`` puts English back after it)."""
    from ptotui.model import i18n

    i18n.set_language("zh")
    yield
    i18n.set_language("en")


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
