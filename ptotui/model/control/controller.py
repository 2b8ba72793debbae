"""The dashboard's decisions, without Textual: each event in (a load, the history, the compare
with the snapshots, what was seen, a compared source, a triage or settings request) returns
the effects the App runs (:mod:`ptotui.model.control.effects`). Work off the UI thread is a
:class:`Job` whose result comes back here; a job that fails is one notice."""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ptotui.model.control.effects import Effect, Job, Notice, Publish
from ptotui.model.control.wording import Said, reload_effects, since_effects
from ptotui.model.i18n import N_, _
from ptotui.model.location import Location, bundled_samples
from ptotui.model.read.loader import gc_paused
from ptotui.model.session import Session, Update
from ptotui.model.text import clean, one_line
from ptotui.model.triage import TriageStore
from ptotui.model.types import Kernel, ReadWarning, ReportSet

if TYPE_CHECKING:
    from ptotui.model.changes.live import Steps
    from ptotui.model.changes.points import ChangePoint
    from ptotui.model.config import Config
    from ptotui.model.control.hook import HookRunner
    from ptotui.model.history.compare import CompareSource
    from ptotui.model.history.since import ParsedState, SinceSnapshot
    from ptotui.model.history.snapshots import History, HistoryReader
    from ptotui.model.options import DashboardOptions

Post = Callable[[Callable[[], list[Effect]]], object]  # thread-safe: run this on the UI thread, then its effects


class Feed(Protocol):
    """What the controller needs of the thing that keeps the reports true (a ReportWatcher)."""

    @property
    def location(self) -> Location: ...

    @property
    def follows_runs(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def load_now(self) -> None: ...

    def request_reload(self, force: bool = True) -> None: ...

    def first_frame_shown(self) -> None: ...

    def parsed_state(self, path: Path) -> ParsedState | None: ...

    def loaded_once_more(self) -> None: ...


def read_and_freeze(reader: HistoryReader, location: Location) -> History:
    """The first history read, with the collector paused, then frozen out of its full passes.

    The history of thousands of snapshots is hundreds of thousands of small objects
    (4,000 snapshots x 50 kernels: 420,000) that live as long as the app, and later
    updates keep them (they add points). Each full collection walked all of them with
    the interpreter held, stalling whatever key was pressed then (benchmarks/bench_history.py).
    The read makes no cyclic garbage; what the UI thread left meanwhile is frozen with it, once."""
    with gc_paused():
        history = reader.read(location)
        gc.freeze()
    return history


class Controller:
    """Decides, for one dashboard, what each event means: what to announce, what to publish,
    what to read or write next. Holds the session; the App holds the screens."""

    def __init__(
        self,
        session: Session,
        options: DashboardOptions,
        feed: Feed,
        post: Post,
        *,
        watch: bool = True,
        gc_managed: bool = False,
        give_way: Callable[[], None] | None = None,
    ) -> None:
        self.session = session
        self.options = options
        self.config: Config = options.settings  # the settings file, as the column and language choices leave it
        self.feed = feed
        self.post = post
        self.watch = watch
        self.gc_managed = gc_managed  # the CLI's choice: the first history read may freeze what it made
        self.give_way = give_way
        self.thresholds = options.thresholds
        self.state_file: Path = options.state or _default_state_file()
        self._history_reader: tuple[Location, HistoryReader] | None = None
        self._compared: list[Feed] = []
        # Settings writes asked for and not done yet: what leaving() writes if their job has not.
        self._unsaved: dict[str, Callable[[], None]] = {}
        # --publish: due at the first load with runs (what landed while ptotui was not running),
        # after each landed run, and again after a failure.
        self._publish_due = True
        self._hooks: HookRunner | None = None  # made at the first --on-regression hook

    @property
    def hooks(self) -> HookRunner:
        """What runs the --on-regression hooks: one at a time, each in a process group of its own."""
        if self._hooks is None:
            from ptotui.model.control.hook import HookRunner

            self._hooks = HookRunner()
        return self._hooks

    # -- start and end ----------------------------------------------------------------

    def started(self) -> list[Effect]:
        """The app is up: the settings file's warning, and the first load when not watching."""
        effects: list[Effect] = []
        if self.options.settings_warning:
            effects.append(Notice(self.options.settings_warning, _("Settings"), "warning", 10))
        if not self.watch:
            effects.append(self._load_once())
        return effects

    def first_frame_shown(self) -> list[Effect]:
        """The first rows are on screen: the feed may set its watches up, and what was seen is
        read (not at once: the frame is still being written out)."""
        self.feed.first_frame_shown()
        return [Job(N_("Reading what was seen"), self.saved_seen, self._seen_read, "seen", delay=0.3)]

    def leaving(self) -> None:
        """On exit, on the UI thread (the one file I/O there): what was seen and the triage
        entries written, the feeds stopped."""
        import contextlib

        if self._hooks is not None:  # a hook's group stopped, the waiting ones dropped: none outlives ptotui
            self._hooks.close()
        session = self.session
        if session.reports is not None:  # (before the first load nothing was seen)
            with contextlib.suppress(OSError, ValueError, Said):
                self._save_seen(session.seen_now(lambda: self.saved_seen()[0]).kernels)
        self.feed.stop()
        for feed in self._compared:
            feed.stop()
        if self._history_reader is not None:
            self._history_reader[1].close()
        if session.triage is not None:  # a key pressed just before q: write it before leaving
            with contextlib.suppress(OSError, ValueError):
                session.triage.flush()
        for write in list(self._unsaved.values()):  # a column or language choice just before q
            with contextlib.suppress(Said):
                write()

    # -- loads ------------------------------------------------------------------------

    def loaded(self, reports: ReportSet) -> list[Effect]:
        """A new load from the feed."""
        session = self.session
        session.relocate(self.feed.location)  # PATH resolved anew once reports appeared
        store = session.open_triage(self.state_file, self.options.read_only)
        effects: list[Effect] = [self._triage_job(store, store.reload)]  # entries another ptotui wrote meanwhile
        effects += self.react(session.apply(reports))
        effects += self._search_landed(reports)
        effects += self._publish_landed(reports)
        if session.history is not None:
            effects += self.compare_with_snapshots(reports)
        first = session.history_due(reports, self.options.git)
        if first is not None:
            # After the first frame: the rows do not need the snapshots.
            effects.append(
                Job(
                    N_("Reading the history"),
                    self._read_history(first),
                    self._history_read,
                    "history",
                    True,
                    0.5 if first else 0.0,
                )
            )
        return effects

    def _publish_landed(self, reports: ReportSet) -> list[Effect]:
        """``--publish REMOTE``: runs landed (or a publish is still due), so the tree is published
        to the host's branch and pushed, on a worker (:mod:`ptotui.model.publish`)."""
        remote, bench = self.options.publish, reports.bench_run
        if not remote or bench is None or not (bench.landed or self._publish_due):
            return []
        self._publish_due = False
        location, host = self.session.location, self.options.publish_host or self.config.host

        def work() -> tuple[str | None, str | None, bool]:
            from ptotui.model.history.gitreports import GitError
            from ptotui.model.publish import PublishError, default_host, publish, repository_of

            try:
                done = publish(location, repository_of(location.bench, None), host or default_host(), remote)
            except PublishError as exc:  # no repository, nothing to publish: no load mends that
                return None, str(exc), False
            except (GitError, OSError) as exc:
                return None, str(exc), True
            return done.ref, done.push_error, done.push_error is not None

        return [Job(N_("Publishing the landed runs"), work, self._published, "publish")]

    def _published(self, result: tuple[str | None, str | None, bool]) -> list[Effect]:
        _ref, error, again = result
        if error is None:
            return []  # quiet when it works: the branch is where the fleet looks
        if again:  # git or the remote failed: tried again at the next load
            self._publish_due = True
            said = _("Not published to {remote}, tried again at the next load: {error}")
        else:  # told once; the next landed run tries again
            said = _("Not published to {remote}: {error}")
        return [Notice(said.format(remote=self.options.publish, error=one_line(clean(error), 300)), None, "warning", 8)]

    def _search_landed(self, reports: ReportSet) -> list[Effect]:
        """Runs landed: their kernels' change points searched again on a worker (those kernels
        only); a PTO slowdown they made significant comes back as a regression (steps_found)."""
        bench = reports.bench_run
        if bench is None or not bench.landed:
            return []
        session, view, landed = self.session, bench.runs, bench.landed

        def search() -> tuple[list[ChangePoint], Steps]:
            steps = session.steps  # (made, and its modules imported, on the worker)
            return steps.landed(view, landed), steps

        return [Job(N_("Finding the change points of the landed runs"), search, self.steps_found, "steps")]

    def steps_found(self, result: tuple[list[ChangePoint], Steps]) -> list[Effect]:
        update = self.session.take_steps(*result)
        return self.react(update) if update is not None else []

    def loader_failed(self, text: str) -> list[Effect]:
        return [Notice(text, None, "error", 8)]

    def react(self, update: Update) -> list[Effect]:
        """What a step of the session brought: announced, then published to the screens."""
        return [
            *reload_effects(update, self.options.bell, self.options.on_regression),
            *since_effects(update),
            Publish(update),
        ]

    def reload(self) -> list[Effect]:
        """``r``: read the reports again now."""
        if self.watch:
            self.feed.request_reload(force=True)
            return []
        return [self._load_once()]

    def _load_once(self) -> Job:
        return Job(N_("Reading the reports"), self.feed.load_now, None, "load", True)

    # -- the history and the compare with the snapshots --------------------------------

    def _read_history(self, first: bool) -> Callable[[], History]:
        """The history read, as the job runs it: the reader (and its module) made then, on the
        worker, not with the job (the first load's job is made before the first frame)."""

        def read() -> History:
            from ptotui.model.history.snapshots import HistoryReader

            location = self.session.location
            reader = self._history_reader
            if reader is None or reader[0] != location:  # one reader per reports directory: it caches
                if reader is not None:
                    reader[1].close()
                git = self.options.git and location.bench.resolve() != bundled_samples().resolve()  # not our repo
                reader = self._history_reader = (location, HistoryReader(self.thresholds, git, self.give_way))
            if first and self.gc_managed:
                return read_and_freeze(reader[1], location)
            return reader[1].read(location)

        return read

    def _history_read(self, history: History) -> list[Effect]:
        effects: list[Effect] = [
            Notice(note.shown(), _("History from git"), "warning", 8) for note in history.notes
        ]  # git missing, a shallow clone: each said once
        effects.append(Publish(self.session.set_history(history)))
        if self.session.reports is not None:
            effects += self.compare_with_snapshots(self.session.reports)
        return effects

    def compare_with_snapshots(self, reports: ReportSet) -> list[Effect]:
        """Diff the reports with the newest snapshot that differs, off the UI thread."""
        history = self.session.history
        if history is None:
            return []
        if reports.bench_run is None and self.watch and self.feed.follows_runs:
            return []  # the runs join from the next load: without them every ratio drop would count
        location, options, feed = self.session.location, self.options, self.feed

        def measure() -> tuple[SinceSnapshot, ReportSet]:
            from ptotui.model.history.since import measure_since

            parsed = feed.parsed_state if feed.location == location else None
            bench = reports.bench_run  # the runs give the snapshot's latencies: which side moved since
            runs = bench.runs if bench is not None else None
            since = measure_since(
                location, reports, history, self.thresholds, options.ratio_pp, options.min_change, runs, parsed
            )
            feed.loaded_once_more()  # the comparison's peak (a second state matrix) given back
            return since, reports

        return [Job(N_("Comparing with the snapshots"), measure, self.since_measured, "since", True)]

    def since_measured(self, result: tuple[SinceSnapshot, ReportSet]) -> list[Effect]:
        update = self.session.set_since(*result)
        return self.react(update) if update is not None else []  # (None: a newer load is compared already)

    # -- --compare ----------------------------------------------------------------------

    def start_compare(self) -> list[Effect]:
        """Each --compare source: another host's directory watched like the main one, a
        revision read once."""
        from ptotui.model.live.watcher import ReportWatcher

        effects: list[Effect] = []
        options = self.options
        for index, source in enumerate(self.session.compare_sources):
            deliver = self._compared_from_thread(index)
            if source.location is not None:
                feed = ReportWatcher(
                    source.location,
                    deliver,
                    self.thresholds,
                    poll=options.poll,
                    ratio_pp=options.ratio_pp,
                    clock=getattr(self.feed, "clock", None),  # the main watcher's: the UI's time.time
                )
                if self.watch:
                    feed.start()
                else:
                    effects.append(Job(N_("Reading a --compare directory"), feed.load_now, None, "compare"))
                self._compared.append(feed)
            else:
                effects.append(
                    Job(
                        N_("Reading a --compare revision"),
                        self._read_revision(source),
                        self._compared_in(index),
                        "compare",
                    )
                )
        return effects

    def _read_revision(self, source: CompareSource) -> Callable[[], ReportSet]:
        location, thresholds = self.session.location, self.thresholds

        def read() -> ReportSet:
            from ptotui.model.history import compare

            return compare.read(source, location, thresholds)

        return read

    def _compared_from_thread(self, index: int) -> Callable[[ReportSet], None]:
        done = self._compared_in(index)

        def deliver(reports: ReportSet) -> None:  # on the compared source's loader thread
            self.post(lambda: done(reports))

        return deliver

    def _compared_in(self, index: int) -> Callable[[ReportSet], list[Effect]]:
        return lambda reports: [Publish(self.session.set_compared(index, reports))]

    # -- what was seen ---------------------------------------------------------------------

    def saved_seen(self) -> tuple[dict[str, Kernel] | None, list[ReadWarning]]:
        """What was seen, as saved (on a worker: finding the key may ask git)."""
        from ptotui.model.history.since import load_seen, seen_file
        from ptotui.model.reportskey import reports_key

        warnings: list[ReadWarning] = []
        keys = reports_key(self.session.location.reports)
        return load_seen(seen_file(self.state_file), keys.key, warnings, keys.old), warnings

    def _seen_read(self, result: tuple[dict[str, Kernel] | None, list[ReadWarning]]) -> list[Effect]:
        saved, warnings = result
        effects: list[Effect] = [Notice(w.shown(), _("What was seen"), "warning", 10) for w in warnings]
        update = self.session.start_seen(saved)
        if update is not None:
            effects.append(Publish(update))
        return effects

    def see_all(self) -> list[Effect]:
        """``m``: every kernel seen as it is now, kept for the next start (written on a worker).
        Before what was seen is read, it is not read here: every kernel counts as seen now anyway."""
        seen = self.session.see_all(lambda: None)
        effects: list[Effect] = [Publish(Update(self.session.reports))]
        if seen is not None and not self.options.read_only:
            effects.append(Job(N_("Saving what was seen"), lambda: self._save_seen(seen), None, "seen"))
        return effects

    def warning_dismissed(self, key: tuple[str, int | None, str], dismissed: bool) -> list[Effect]:
        """``d`` in ``W``: the box leaves out this warning (file, line, message) until its text
        changes, for this session; ``d`` again shows it again."""
        if dismissed:
            self.session.dismissed_warnings.add(key)
        else:
            self.session.dismissed_warnings.discard(key)
        return [Publish(Update(self.session.reports))]

    def _save_seen(self, seen: dict[str, Kernel]) -> None:
        from ptotui.model.history.since import save_seen, seen_file
        from ptotui.model.reportskey import reports_key

        if self.options.read_only:  # serve --read-only writes nothing, "last looked" included
            return
        keys = reports_key(self.session.location.reports)  # (found when what was seen was read: cached)
        try:
            save_seen(seen_file(self.state_file), keys.key, seen, keys.old)
        except OSError as exc:
            raise Said(_("What was seen is not saved: {why}").format(why=exc)) from None

    # -- triage ----------------------------------------------------------------------------

    def may_triage(self) -> list[Effect]:
        """Empty when the triage keys are on; else the notice that says they are off."""
        if self.options.read_only:
            return [Notice(_("Read-only: triage is off here."), _("Triage"), "warning")]
        return []

    def triage(self, kernel: Kernel, state: str | None, note: str | None = None) -> list[Effect]:
        """Show the change at once; write it on a worker (neither state nor note: clear)."""
        store = self.session.triage
        if store is None:
            return []
        refused = self.may_triage()
        if refused:
            return refused
        try:
            store.stage(kernel, state, note)
        except (OSError, ValueError) as exc:
            return [Notice(_("Triage not saved: {why}").format(why=exc), None, "error")]
        return [self._triage_job(store, store.flush), Publish(Update(self.session.reports))]

    def _triage_job(self, store: TriageStore, step: Callable[[], None]) -> Job:
        """Triage file I/O off the UI thread: a big shared file must not stall keys. The store
        serialises its readers and writers and keeps staged changes in order."""

        def work() -> bool:
            before, warned = store.entries, len(store.warnings)
            try:
                step()
            except (OSError, ValueError) as exc:
                raise Said(_("Triage not saved: {why}").format(why=exc), "error") from None
            return store.entries != before or len(store.warnings) != warned

        def done(changed: bool) -> list[Effect]:
            if store is not self.session.triage or not changed:  # (another directory meanwhile)
                return []
            return [Publish(Update(self.session.reports))]

        return Job(N_("Reading or writing the triage file"), work, done, "triage")

    # -- settings ----------------------------------------------------------------------------

    def columns_chosen(self, columns: Sequence[str]) -> list[Effect]:
        """Keep the column choice in the settings file, if the app has one (on a worker); the
        default columns are not kept there (a later default then holds), but taken out."""
        from ptotui.model.config import DEFAULT_COLUMNS, normal_columns
        from ptotui.model.configsave import save_columns

        chosen: tuple[str, ...] | None = normal_columns(tuple(columns))
        if chosen == DEFAULT_COLUMNS:
            chosen = None
        self.config = self.config.with_columns(chosen)
        return self._save_setting("columns", lambda path: save_columns(path, chosen))

    def language_chosen(self, lang: str) -> list[Effect]:
        """``l``: the language kept in the settings file like the columns (on a worker). The
        language the environment gives anyway is not pinned: ``lang`` is taken out of the file,
        so a later ``LANG`` holds again."""
        from ptotui.model.configsave import save_lang

        pinned = None if lang == self.options.unpinned_language else lang
        self.config = replace(self.config, lang=pinned)
        return self._save_setting("language", lambda path: save_lang(path, pinned))

    def theme_chosen(self, theme: str, default: str) -> list[Effect]:
        """A theme picked in the command palette, kept in the settings file like the language;
        the app's ``default`` theme is not kept (``theme`` is taken out), so a later default holds."""
        from ptotui.model.configsave import save_theme

        pinned = None if theme == default else theme
        if pinned == self.config.theme:
            return []  # the theme the file gives (at start-up, or picked again): nothing to say or write
        self.config = replace(self.config, theme=pinned)
        return self._save_setting("theme", lambda path: save_theme(path, pinned))

    def theme_missing(self, theme: str) -> list[Effect]:
        """The settings file names a theme the app does not have (one of a newer Textual): the default."""
        said = _("The settings file's theme {theme!r} is not one of the app's themes; the default is used.")
        return [Notice(said.format(theme=theme), _("Settings"), "warning")]

    _SETTINGS = {  # what is saved: the job's name, the words when it cannot be, and under --read-only
        "columns": (
            N_("Saving the columns"),
            N_("Columns not saved: {why}"),
            N_("Read-only: the columns chosen hold for this session and are not saved."),
        ),
        "language": (
            N_("Saving the language"),
            N_("Language not saved: {why}"),
            N_("Read-only: the language chosen holds for this session and is not saved."),
        ),
        "theme": (
            N_("Saving the theme"),
            N_("Theme not saved: {why}"),
            N_("Read-only: the theme chosen holds for this session and is not saved."),
        ),
    }

    def _save_setting(self, what: str, write: Callable[[Path], None]) -> list[Effect]:
        path = self.config.path
        if path is None:
            return []
        name, words, read_only = self._SETTINGS[what]
        if self.options.read_only:  # writes nothing (serve --read-only: not the server's config.toml either)
            return [Notice(_(read_only), _("Settings"), "warning")]
        return [Job(name, self._saving(what, lambda: write(path), words), None, "settings")]

    def _saving(self, what: str, write: Callable[[], None], words: str) -> Callable[[], None]:
        """A settings write, to run on a worker (or on exit, if the worker has not run it yet)."""

        def work() -> None:
            if self._unsaved.get(what) is not work:
                return  # written already, or a newer choice replaced it
            try:
                write()
            except (OSError, ValueError) as exc:
                raise Said(_(words).format(why=exc)) from None
            finally:
                if self._unsaved.get(what) is work:
                    del self._unsaved[what]

        self._unsaved[what] = work
        return work


def _default_state_file() -> Path:
    from ptotui.model.triage import default_state_file

    return default_state_file()
