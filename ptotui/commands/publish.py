"""``ptotui publish [PATH] [--remote REMOTE] [--host NAME] [--repo REPO] [--full]``: this bench host's
reports and runs onto the branch ``ptotui/hosts/<host>``, with git plumbing only
(:mod:`ptotui.model.publish`): the work tree, the index and the current branch stay as they were.

Exit 0 when published (or nothing changed), 1 when the push failed (the commit is kept and goes
with the next push), 2 for bad input (no repository, nothing to publish)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ptotui.commands.common import UsageError, existing_location, warn
from ptotui.model.i18n import _
from ptotui.model.text import visible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("reports dir, bench dir or checkout"))
    parser.add_argument("--remote", help=_("push the host's branch to this remote (a name or URL)"))
    parser.add_argument(
        "--host", help=_("the host's name (default: [host] name in the settings file, else this machine's hostname)")
    )
    parser.add_argument(
        "--repo", metavar="REPO", help=_("the git repository to publish into (default: the one holding PATH)")
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help=_("walk every run and hash every file again, not only the runs that are new or changed"),
    )


def run(args: argparse.Namespace) -> int:
    from ptotui.model.history.gitreports import GitError
    from ptotui.model.publish import PublishError, default_host, publish, repository_of

    location = existing_location(args.path)
    settings = getattr(args, "settings", None)
    host = args.host or (settings.host if settings is not None else None) or default_host()
    if args.remote is not None and (not args.remote or args.remote.startswith("-")):
        raise UsageError(_("--remote {remote}: not a remote").format(remote=visible(args.remote)))
    try:
        repository = repository_of(location.bench, Path(args.repo).expanduser() if args.repo else None)
        done = publish(location, repository, host, args.remote, full=args.full)
    except PublishError as exc:
        raise UsageError(str(exc)) from None
    except GitError as exc:
        print(_("ptotui: not published: {error}").format(error=visible(exc)), file=sys.stderr)
        return 1
    for note in done.notes:
        print(_("ptotui: note: {note}").format(note=note), file=sys.stderr)
    if done.commit is None:
        said = _("{ref}: nothing changed since the last publish ({runs} runs, {files} files)")
    else:
        said = _("{ref}: published {commit} ({runs} runs, {files} files)")
    line = said.format(ref=done.ref, commit=(done.commit or "")[:12], runs=done.runs, files=done.files)
    if done.pushed:
        line += " " + _("and pushed to {remote}").format(remote=visible(args.remote))
    print(line)
    warn(done.warnings)
    if done.push_error is not None:
        said = _("ptotui: the push to {remote} failed; the commit is kept and goes with the next publish: {error}")
        print(said.format(remote=visible(args.remote), error=visible(done.push_error)), file=sys.stderr)
        return 1
    return 0
