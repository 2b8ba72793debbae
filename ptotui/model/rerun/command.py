"""What ``R`` runs for a kernel: the runner's command line, its directory and its environment.

The default is the tree's own runner, as its README says to run it:
``PYTHONPATH=python python3 -m pto_kernels.bench.runner bench/specs/<family>/<kernel>.yaml``
from the tree's root (the directory that holds ``bench/``). The settings file's ``[runner]``
table may change the command (a template), add variables and allow more than one run at a
time; ``--runner CMD`` replaces the command for one start of ptotui.

The template is split with :func:`shlex.split` first and each word filled in afterwards, so a
spec path with a space stays one argument and nothing in a kernel's name is ever read by a
shell (none is used).
"""

from __future__ import annotations

import os
import shlex
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ptotui.model.config import RunnerSettings
from ptotui.model.i18n import _
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel

DEFAULT_COMMAND = "python3 -m pto_kernels.bench.runner {spec}"
DEFAULT_ENV: tuple[tuple[str, str], ...] = (("PYTHONPATH", "python"),)
FIELDS = ("spec", "kernel", "family", "root")


class CommandError(ValueError):
    """The template cannot be made into a command line (said in one line, in the UI's language)."""


@dataclass(frozen=True)
class Runner:
    """How re-runs are started: the template, the variables added, how many at once."""

    template: str = DEFAULT_COMMAND
    env: tuple[tuple[str, str], ...] = DEFAULT_ENV
    parallel: int = 1

    @classmethod
    def of(cls, settings: RunnerSettings, flag: str | None = None) -> Runner:
        """``--runner CMD`` (``flag``), else ``[runner].command``, else the tree's runner;
        ``[runner].env`` over ``PYTHONPATH=python``."""
        template = flag or settings.command or DEFAULT_COMMAND
        env = dict(DEFAULT_ENV) | dict(settings.env)
        return cls(template, tuple(env.items()), settings.parallel or 1)

    def check(self) -> None:
        """CommandError when the template is not a command line with known ``{names}`` only."""
        words = _split(self.template)
        for word in words:
            _fields_of(word)


@dataclass(frozen=True)
class RerunCommand:
    """One re-run, ready to start."""

    argv: tuple[str, ...]
    cwd: Path
    env_added: tuple[tuple[str, str], ...]

    def shown(self) -> str:
        """The command as a person would type it: the added variables, then the words, quoted."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env_added)
        return (env + " " if env else "") + shlex.join(self.argv)

    def environ(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The runner's environment: ptotui's, with the added variables on top."""
        merged = dict(os.environ if base is None else base)
        merged.update(self.env_added)
        return merged


def _split(template: str) -> list[str]:
    try:
        words = shlex.split(template)
    except ValueError as exc:
        raise CommandError(_("the runner command cannot be split into words: {why}").format(why=exc)) from None
    if not words:
        raise CommandError(_("the runner command is empty"))
    return words


def _fields_of(word: str) -> list[str]:
    try:
        names = [name for _text, name, _spec, _conv in string.Formatter().parse(word) if name is not None]
    except ValueError as exc:
        raise CommandError(_("the runner command cannot be filled in: {why}").format(why=exc)) from None
    unknown = [n for n in names if n not in FIELDS]
    if unknown:
        said = _("the runner command names {name}, which is not one of {known}")
        known = ", ".join("{" + f + "}" for f in FIELDS)
        raise CommandError(said.format(name="{" + unknown[0] + "}", known=known))
    return names


def tree_root(bench: Path) -> Path:
    """The directory that holds ``bench/``: where the runner runs, whatever ptotui's own."""
    return bench.resolve().parent


def spec_of(kernel: Kernel, root: Path) -> str | None:
    """The kernel's spec, relative to ``root``: the summary's ``spec`` when that file exists
    inside the tree, else ``bench/specs/<family>/<kernel>.yaml`` when it exists, else None."""
    candidates = []
    if kernel.spec:
        candidates.append(kernel.spec)
    if kernel.family and _plain(kernel.family) and _plain(kernel.name):
        candidates.append(f"bench/specs/{kernel.family}/{kernel.name}.yaml")
    resolved_root = root.resolve()
    for candidate in candidates:
        if "\0" in candidate:
            continue
        path = (root / candidate).resolve()
        if path.is_relative_to(resolved_root) and path.is_file():
            return path.relative_to(resolved_root).as_posix()
    return None


def _plain(name: str) -> bool:
    """A name that is one path component (a summary is untrusted: no ``..``, no ``/``)."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name


def command_for(runner: Runner, kernel: Kernel, root: Path, spec: str | None) -> RerunCommand:
    """The command that re-runs ``kernel``. CommandError when the template needs ``{spec}``
    and the kernel has none, or the template is not a command line."""
    words = _split(runner.template)
    if spec is not None and spec.startswith("-"):
        spec = "./" + spec  # the same file, never read as an option
    values = {"kernel": kernel.name, "family": kernel.family or "", "root": str(root), "spec": spec or ""}
    argv = []
    for word in words:
        names = _fields_of(word)
        if "spec" in names and spec is None:
            said = _("{kernel} has no spec: no bench/specs/<family>/<kernel>.yaml and none in the summary")
            raise CommandError(said.format(kernel=_shown(kernel.name)))
        filled = word.format(**values)
        if filled.startswith("-") and not word.startswith("-"):
            # A name from the summary (untrusted) would reach the runner as an option: -h, --output=…
            field = next(n for n in names if values[n])
            said = _("{kernel} is not re-run: {field} in the runner command would be {value}, an option to the runner")
            value = _shown(values[field])
            raise CommandError(said.format(kernel=_shown(kernel.name), field="{" + field + "}", value=value))
        argv.append(filled)
    return RerunCommand(tuple(argv), root, runner.env)


def _shown(name: str) -> str:
    """A name from the reports, for a notice: cleaned, on one line."""
    return one_line(clean(name), 60)
