"""The screens' common base: a Screen whose ``app`` is typed as ours."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import getters
from textual.screen import Screen

if TYPE_CHECKING:
    from ptotui.app.app import PtoTuiApp

ResultType = TypeVar("ResultType")


class PtoScreen(Screen[ResultType]):
    """A screen of ptotui: ``self.app`` is a PtoTuiApp, so its state is typed."""

    if TYPE_CHECKING:  # as Textual types its own ``app``; a runtime import would be circular
        app = getters.app(PtoTuiApp)
