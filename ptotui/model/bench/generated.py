"""``bench/generated/<family>/<kernel>/report.json``: the runner's copy of a kernel's newest run
directory, read for the run it is a copy of (a run whose directory under ``bench/results`` is
gone or was never kept still counts, as the summary generator counts it)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from ptotui.model.bench.record import (
    Run,
    RunUnreadable,
    kernel_of_report,
    parse_report,
    run_of_kernel,
    stamp_of_time,
    stamp_seconds,
    started_of_path,
)
from ptotui.model.core.environment import as_text, environment_of
from ptotui.model.i18n import _
from ptotui.model.read import safefile, values
from ptotui.model.text import clean
from ptotui.model.types import Kernel, ReadWarning

GENERATED_GRACE_S = 10.0  # a generated report that vanished (rmtree + copytree) is kept this long


@dataclass
class GeneratedCopy:
    """One ``bench/generated/<family>/<kernel>/report.json`` as last read."""

    signature: tuple[int, int, int] | None = None
    run: Run | None = None
    kernel: Kernel | None = None
    warning: ReadWarning | None = None
    missing_since: float | None = None  # monotonic time it was first found gone


def read_copy(
    gen: GeneratedCopy,
    path: str,
    family: str,
    kernel: str,
    info: os.stat_result,
    signature: tuple,
    horizon: float | None,
    results: str,
) -> None:
    """Read ``path`` (``bench/generated/<family>/<kernel>/report.json``, whose lstat is ``info``)
    into ``gen``: the run it is a copy of and its kernel, or a warning; a run stamped past
    ``horizon`` (seconds) is not taken (said here unless ``results`` has its run directory)."""
    gen.signature, gen.warning = signature, None
    if stat.S_ISLNK(info.st_mode):
        gen.run = gen.kernel = None
        gen.warning = ReadWarning(str(path), _("is a symlink; not followed"))
        return
    try:
        report = parse_report(safefile.read_bytes(path), str(path))
    except FileNotFoundError:
        gen.signature = None
        return
    except (safefile.FileRefused, RunUnreadable) as exc:
        gen.warning = ReadWarning(str(path), str(exc))
    except OSError as exc:
        gen.warning = ReadWarning(str(path), _("cannot be read: {error}").format(error=clean(exc.strerror or exc)))
    else:
        started = started_of_path(values.as_str(report.get("report_path"))) or started_of_path(
            values.as_str(report.get("artifacts_dir"))
        )
        if started is None:  # not a copy of a run directory (written some other way): not a run
            gen.run = gen.kernel = None
            return
        seconds = stamp_seconds(started)
        if horizon is not None and seconds is not None and seconds > horizon:
            gen.run = gen.kernel = None
            if not os.path.isdir(os.path.join(results, family, kernel, started)):  # else said there
                said = _(
                    "a copy of run {stamp}, stamped more than a day after this machine's clock: not taken as a run"
                )
                gen.warning = ReadWarning(str(path), said.format(stamp=started))
            return
        made = kernel_of_report(report, kernel, values.as_str(report.get("family")) or family, str(path))
        gen.kernel = made
        where = as_text(environment_of(report))
        gen.run = run_of_kernel(made, started, stamp_of_time(info.st_mtime), str(path), environment=where)
        return
    # A torn copy (copytree still writing): the last good run stands, with the warning, until
    # the file reads whole (its signature changes then).
