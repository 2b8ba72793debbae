"""The main screen's keys: each binding's id is what the settings file's [keys] table remaps
(docs/keys-and-configuration.md); a Command is also a command-palette entry (ptotui/app/keys.py)."""

from __future__ import annotations

from textual.binding import Binding

from ptotui.app.keys import Command
from ptotui.model.core.tiers import TIER_LABELS, TIERS
from ptotui.model.i18n import N_

MAIN_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    # A priority binding runs as the key arrives, before the keys typed after it are
    # routed: "/soft" typed fast all lands in the filter, not "s" and "o" in the table.
    Binding("slash", "open_filter", N_("Filter"), key_display="/", priority=True, id="main.filter"),
    Binding("enter", "show_detail", N_("Detail"), show=False, id="main.detail"),
    Command(
        "b",
        "toggle_blockers",
        N_("Blockers"),
        id="main.blockers",
        title=N_("Toggle blocker pane"),
        help=N_("Show or hide blockers by layer"),
    ),
    Binding("s", "sort_next", N_("Sort"), id="main.sort"),
    Binding("S", "sort_previous", N_("Sort back"), show=False, id="main.sort-back"),
    Command(
        "o",
        "flip_order",
        N_("Asc/desc"),
        show=False,
        id="main.order",
        title=N_("Reverse sort order"),
        help=N_("Ascending / descending"),
    ),
    Binding("g", "toggle_pane_view", N_("Blockers by gap/layer"), show=False, id="main.pane-view"),
    Command(
        "escape",
        "clear_filters",
        N_("Clear filter / back to the table"),
        show=False,
        id="main.clear",
        title=N_("Clear filters"),
        help=N_("Show every kernel"),
    ),
    Binding("0", "filter_tier('')", N_("All tiers"), show=False, id="main.tier-all"),
    *[
        Command(
            str(i),
            f"filter_tier('{t}')",
            N_("Toggle {label} in the shown tiers"),
            show=False,
            id=f"main.tier-{t}",
            title=N_("Only {label}"),
            help=N_("Filter to the {tier} tier"),
            fill=(("label", TIER_LABELS[t]), ("tier", t)),
        )
        for i, t in enumerate(TIERS, start=1)
    ],
    Binding(
        "exclamation_mark",
        "show_all_blockers",
        N_("All blockers (tiers)"),
        key_display="!",
        show=False,
        id="main.all-blockers",
    ),
    Command(
        "r",
        "reload",
        N_("Reload"),
        id="main.reload",
        title=N_("Reload reports"),
        help=N_("Read the reports again now"),
    ),
    Binding("a", "triage('acknowledged')", N_("Ack"), show=False, id="main.acknowledged"),
    Binding("i", "triage('investigating')", N_("Investigating"), show=False, id="main.investigating"),
    Binding("u", "triage('needs-upstream')", N_("Needs upstream"), show=False, id="main.needs-upstream"),
    Binding("w", "triage('wont-fix')", N_("Won't fix"), show=False, id="main.wont-fix"),
    Binding("x", "triage('')", N_("Clear triage"), show=False, id="main.clear-triage"),
    Binding("n", "edit_note", N_("Note"), show=False, id="main.note"),
    Command(
        "t",
        "toggle_untriaged",
        N_("Only untriaged"),
        show=False,
        id="main.untriaged",
        title=N_("Only untriaged blockers"),
        help=N_("Toggle the untriaged filter"),
    ),
    Command(
        "c",
        "toggle_changed",
        N_("Only changed"),
        show=False,
        id="main.changed",
        title=N_("Only changed kernels"),
        help=N_("Toggle the changed filter"),
    ),
    Command(
        "m",
        "mark_seen",
        N_("Mark all seen"),
        show=False,
        id="main.mark-seen",
        title=N_("Mark all changes seen"),
        help=N_("Clear the Δ marks"),
    ),
    Command(
        "C",
        "toggle_changes",
        N_("Changes pane"),
        show=False,
        id="main.changes",
        title=N_("Show changes pane"),
        help=N_("What changed, with times"),
    ),
    Command(
        "h",
        "toggle_history",
        N_("History column"),
        show=False,
        id="main.history",
        title=N_("Toggle history column"),
        help=N_("Sparkline of the median ratio per snapshot"),
    ),
    Command(
        "equals_sign",
        "toggle_differing",
        N_("Only differing (--compare)"),
        key_display="=",
        show=False,
        id="main.differing",
        title=N_("Only differing kernels"),
        help=N_("Tier or status differs in a --compare source"),
        needs="compare_sources",
    ),
    Command(
        "G",
        "show_overview",
        N_("Overview"),
        show=False,
        id="main.overview",
        title=N_("Overview"),
        help=N_("Charts: tiers per family, median ratios"),
    ),
    Command(
        "v",
        "choose_columns",
        N_("Columns"),
        show=False,
        id="main.columns",
        title=N_("Choose columns"),
        help=N_("Show, hide and reorder the table's columns"),
    ),
    Command(
        "W",
        "show_warnings",
        N_("All warnings"),
        show=False,
        id="main.warnings",
        title=N_("Show all warnings"),
        help=N_("Every warning of the reports, the bench runs, triage and settings"),
    ),
    Command(
        "R",
        "rerun",
        N_("Re-run the kernel (a pane heading: all under it; running: stop it)"),
        show=False,
        id="main.rerun",
        title=N_("Re-run kernel"),
        help=N_("Run the kernel's bench runner again (on a blocker heading: every kernel under it)"),
    ),
    Command(
        "L",
        "show_rerun_output",
        N_("The re-run's output, live"),
        show=False,
        id="main.rerun-output",
        title=N_("Show runner output"),
        help=N_("The running or the last re-run's output, live"),
    ),
    Binding(
        "tab",
        "cycle_focus(1)",
        N_("Table → blocker pane → changes pane"),
        show=False,
        priority=True,
        id="main.focus-next",
    ),
    Binding(
        "shift+tab",
        "cycle_focus(-1)",
        N_("Changes pane → blocker pane → table"),
        show=False,
        priority=True,
        id="main.focus-previous",
    ),
]

MAIN_HELP_EXTRA = [
    (
        "↑ ↓ j k, pgup pgdn, home end",
        N_("move the cursor of the table, the blocker pane or the changes pane"),
        ("table.up", "table.down", "table.page-up", "table.page-down", "table.first", "table.last"),
    ),
    (
        "← →",
        N_("move the table a whole column sideways (tier and kernel stay put; +N → says how many are hidden)"),
        ("table.left", "table.right"),
    ),
    ("enter", N_("open the detail of the kernel under the cursor (table or blocker pane)"), ("table.open",)),
    ("click", N_("a header sorts by it; a tier badge filters to it; a row selects it, a second click opens it")),
]
