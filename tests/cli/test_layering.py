"""The import-linter contracts (pyproject.toml, run by `lint-imports` in .ci/run) name the
commands one by one; this keeps those lists the commands cli.py has, so a new command is
held to its contract from the start.

What the contracts check was checked here before by running each command in a fresh
interpreter and looking at ``sys.modules``; they check the static import graph instead,
in well under a second. What is imported before the first frame stays a run-time check:
tests/cli/test_startup_imports.py.
"""

from __future__ import annotations

import tomllib

from ptotui.cli import COMMANDS, DASHBOARD
from tests.conftest import ROOT

# The commands that draw with Textual; every other one is headless. ``fleet`` draws in a
# terminal and is headless with --format or a pipe: that path is checked at run time
# (test_fleet_json_imports_no_textual), which a static import graph cannot tell apart.
DRAWN = {"demo", "serve", "fleet"}


def _contract(start: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith(start)]
    assert len(found) == 1, start
    return found[0]


def test_the_headless_contract_names_every_command_that_does_not_draw() -> None:
    headless = {spec.module for name, spec in COMMANDS.items() if name not in DRAWN}
    assert set(_contract("The headless commands")["source_modules"]) == headless


def test_the_lazy_registry_contract_names_every_command() -> None:
    every = {spec.module for spec in COMMANDS.values()} | {DASHBOARD.module}
    assert set(_contract("cli.py imports a command's module only when it runs")["forbidden_modules"]) == every
