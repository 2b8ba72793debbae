"""No App member is read outside app.py: the screens, widgets, start-up and re-runs are handed
what they use (a Context, callables) and ask through messages or ``run_action("app.…")``.

Read from the source (no app is run): every member PtoTuiApp adds to Textual's App (its
methods, its attributes) is listed from app.py, and no other module under ptotui/app may name
one on something called ``app`` (``self.app.ctx``, ``app.main``, ``screen.app.controller``,
``getattr(self.app, "session")``), nor import PtoTuiApp (only the factory builds it). Textual's
own API (``self.app.notify``, ``push_screen``, ``run_action``, ``exit``) stays open to all."""

from __future__ import annotations

import ast
from pathlib import Path

from textual.app import App

from tests.conftest import ROOT

APP_DIR = ROOT / "ptotui" / "app"
APP_FILE = APP_DIR / "app.py"
BUILDS_IT = {APP_DIR / "factory.py"}  # the one place the app is made


def own_members() -> set[str]:
    """What PtoTuiApp has that Textual's App has not: its methods and class attributes, and
    every ``self.<name>`` its methods assign."""
    tree = ast.parse(APP_FILE.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PtoTuiApp")
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            if isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return names - set(dir(App))


def _is_app(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "app") or (isinstance(node, ast.Attribute) and node.attr == "app")


def reads(source: str, members: set[str]) -> list[str]:
    """Each reach into the App's own ``members`` in ``source``, as ``line: name``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in members and _is_app(node.value):
            found.append(f"{node.lineno}: {node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            args = node.args
            if len(args) >= 2 and _is_app(args[0]) and isinstance(args[1], ast.Constant) and args[1].value in members:
                found.append(f"{node.lineno}: {args[1].value}")
        elif isinstance(node, ast.ImportFrom) and any(a.name == "PtoTuiApp" for a in node.names):
            found.append(f"{node.lineno}: import PtoTuiApp")
    return found


def test_the_apps_own_members_are_found():
    members = own_members()
    assert {"ctx", "controller", "session", "main", "run_effects", "action_switch_language", "install_help"} <= members
    assert not members & {"notify", "exit", "push_screen", "run_action", "theme"}  # Textual's


def test_the_check_sees_each_way_of_reaching_in():
    members = own_members()
    source = (
        "self.app.ctx.reruns\napp.main.mount_hidden()\nscreen.app.action_switch_language()\n"
        "getattr(self.app, 'session')\nfrom ptotui.app.app import PtoTuiApp\n"
        "self.app.notify('x')\nself.app.run_action('app.switch_language')\nself.ctx.session\n"
    )
    expected = ["1: ctx", "2: main", "3: action_switch_language", "4: session", "5: import PtoTuiApp"]
    assert sorted(reads(source, members)) == expected


def test_no_module_under_ptotui_app_but_app_py_reads_an_app_member():
    members = own_members()
    found = []
    for path in sorted(APP_DIR.rglob("*.py")):
        if path == APP_FILE:
            continue
        for hit in reads(path.read_text(encoding="utf-8"), members):
            if path in BUILDS_IT and hit.endswith("import PtoTuiApp"):
                continue
            found.append(f"{Path(path).relative_to(ROOT)}:{hit}")
    assert found == []
