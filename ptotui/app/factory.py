"""The one place an app is built: the CLI, the tests and the screenshot script use it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ptotui.model.location import Location, locate
from ptotui.model.tiers import Thresholds


def make_app(
    location: Location | str | Path | None = None,
    *,
    thresholds: Thresholds | None = None,
    lang: str = "en",
    initial_filter: str = "",
    poll: bool = False,
    state_file: Path | None = None,
    ratio_pp: float = 2.0,
    watch: bool = True,
    clock: Callable[[], float] | None = None,
):
    """Build a PtoTuiApp for ``location`` (a Location, or a PATH as the CLI takes it)."""
    from ptotui.app.app import PtoTuiApp

    if not isinstance(location, Location):
        location = locate(location)
    return PtoTuiApp(
        location,
        thresholds or Thresholds(),
        lang=lang,
        initial_filter=initial_filter,
        poll=poll,
        ratio_pp=ratio_pp,
        watch=watch,
        state_file=state_file,
        **({"clock": clock} if clock else {}),
    )
