"""The commands: one module per command, each with ``add_arguments(parser)`` and ``run(args) -> int``.

``ptotui.cli`` lists them and imports a command's module only when that command runs.
``dashboard`` is ``ptotui [PATH]`` itself; ``common`` (flag checks, usage errors, the
warning printer) and ``revisions`` (git revisions as arguments) are what the commands share.
Only ``dashboard``, ``demo`` and ``serve`` import Textual; the rest stay headless.
"""
