"""The main screen's actions on the kernel under the cursor (triage, re-run, copy) and its
change-tracking and history actions (bound in MainScreen)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual.binding import Binding

from ptotui.app.context import Context
from ptotui.app.keys import keys_of
from ptotui.app.messages import Effects, RerunOutputRequested, RerunRequested, SeeAll, TriageRequested
from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.app.widgets.kernel_table import KernelTable
from ptotui.model.i18n import _
from ptotui.model.session import Filters, Session
from ptotui.model.triage import STATES
from ptotui.model.types import Kernel, ReportSet

# The triage keys' binding ids (after ``main.``), in the order the words name them.
TRIAGE_KEY_IDS = ("acknowledged", "investigating", "needs-upstream", "wont-fix", "clear-triage", "note")


class TriageActions(PtoScreen[None]):
    """The base of MainScreen, which owns the state these actions change and ``_draw``.

    What MainScreen must provide is declared below, so the actions are checked against it.
    """

    ctx: Context
    session: Session
    filters: Filters

    if TYPE_CHECKING:

        @property
        def reports(self) -> ReportSet | None: ...

        def _draw(self) -> None: ...

        def mount_hidden(self) -> None: ...

    def current_kernel(self) -> Kernel | None:
        """The kernel under the cursor of the focused pane (table or blocker pane)."""
        if self.reports is None:
            return None
        focused = self.focused
        name = None
        if isinstance(focused, BlockerPane):
            name = focused.highlighted_kernel
            if name is None:
                return None  # a heading or a gap: the keys act on kernels only
        else:
            name = self.query_one(KernelTable).cursor_kernel
        return self.reports.by_name().get(name or "")

    def action_copy(self, what: str) -> None:
        """``y``: the kernel's name to the clipboard (OSC 52, through the terminal: over SSH and
        tmux too); ``Y``: its reasons and limitations. A notice says what was copied."""
        from ptotui.model.present.copying import copy_of, nothing_to_copy

        kernel = self.current_kernel()
        if kernel is None:  # a layer's heading in the blocker pane, or no rows: said, not silent
            self.notify(nothing_to_copy(), markup=False, severity="warning")
            return
        text, said = copy_of(kernel, what)
        if text is not None:
            self.app.copy_to_clipboard(text)
        self.notify(said, markup=False)

    def _kernel_to_triage(self, note: bool = False) -> Kernel | None:
        """The kernel a triage key acts on; on a heading or a gap of the blocker pane, none,
        and a word saying so (the keys did nothing there, silently). For ``n`` the word says
        that a note is one kernel's, and where to go for one (not the gap's kernels at once:
        a note on each would be a guess at which of them it is about)."""
        kernel = self.current_kernel()
        focused = self.focused
        if kernel is None and isinstance(focused, BlockerPane) and focused.highlighted_option is not None:
            note_key = self._key_of("main.note")
            if note and focused.view == "gap":
                said = _("A note belongs to one kernel: move to a kernel row under this gap, then {key}.")
            elif note:
                said = _("A note belongs to one kernel: move to a kernel row under this heading, then {key}.")
            else:
                said = _("{keys} act on one kernel: move to a kernel under this heading.")
            keys = " ".join(self._key_of(f"main.{i}") for i in TRIAGE_KEY_IDS)
            said = said.format(key=note_key, keys=keys)
            self.app.notify(said, title=_("Not a kernel"), markup=False, timeout=4)
        return kernel

    def _key_of(self, binding_id: str) -> str:
        """The key that runs binding ``binding_id`` here, as the settings file's ``[keys]`` may
        have remapped it (what the words tell the user to press)."""
        for cls in type(self).__mro__:
            for binding in vars(cls).get("BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id == binding_id:
                    keys = keys_of(binding, self.ctx.keymap)
                    return self.app.get_key_display(Binding(keys[0], "")) if keys else binding.key
        return binding_id

    def action_triage(self, state: str) -> None:
        kernel = self._kernel_to_triage()
        if kernel is None:
            return
        if state and state not in STATES:
            return
        self.post_message(TriageRequested(kernel, state or None))

    def action_edit_note(self) -> None:
        kernel = self._kernel_to_triage(note=True)
        if kernel is None:
            return
        refused = self.ctx.controller.may_triage()
        if refused:
            self.post_message(Effects(refused))
            return
        from ptotui.app.screens.note import NoteScreen

        entry = self.session.triage_status(kernel).entry

        def save(note: str | None) -> None:
            if note is not None:
                self.post_message(TriageRequested(kernel, None, note))

        self.app.push_screen(NoteScreen(kernel.name, entry.note if entry else ""), save)

    def action_rerun(self) -> None:
        """``R``: re-run the kernel under the cursor; on a blocker pane heading, every kernel under it."""
        focused = self.focused
        names = focused.highlighted_heading if isinstance(focused, BlockerPane) else None
        if names and self.reports is not None:
            by_name = self.reports.by_name()
            kernels = [by_name[n] for n in names if n in by_name]
        else:
            kernel = self.current_kernel()
            kernels = [kernel] if kernel is not None else []
        if kernels:
            self.post_message(RerunRequested(kernels))

    def action_show_rerun_output(self) -> None:
        self.post_message(RerunOutputRequested())

    def action_toggle_untriaged(self) -> None:
        self.filters = replace(self.filters, untriaged=not self.filters.untriaged)
        self._draw()

    def action_toggle_changed(self) -> None:
        changed = not self.filters.changed
        shown = frozenset(self.session.marks) if changed else frozenset()
        self.filters = replace(self.filters, changed=changed, changed_shown=shown)
        self._draw()

    def action_mark_seen(self) -> None:
        """``m``: every kernel counts as seen as it is now, remembered for the next start."""
        self.filters = replace(self.filters, changed_shown=frozenset())  # all seen: "only changed" shows none
        self.post_message(SeeAll())  # the controller sees every kernel and keeps it; its update redraws

    def action_toggle_changes(self) -> None:
        self.mount_hidden()
        self.toggle_class("-show-changes")

    def action_toggle_differing(self) -> None:
        if not self.session.compare_sources:  # without --compare nothing can differ: say so
            self.app.notify(
                _("= shows the kernels that differ in a compared source: start with --compare REV_OR_PATH."),
                title=_("Nothing to compare"),
                markup=False,
            )
            return
        self.filters = replace(self.filters, differing=not self.filters.differing)
        self._draw()

    def action_toggle_history(self) -> None:
        table = self.query_one(KernelTable)
        if table.toggle_history() and "history" not in table.fit().keys:
            where = _("→ scrolls to it") if table.fit().hidden_right else _("widen the terminal or hide a column (v)")
            self.notify(_("History is after the ratio, off-screen: {where}").format(where=where), timeout=4)
        self._draw()
