"""Re-running a kernel from the dashboard (``R``): the command, the queue, its output, its outcome.

Textual-free: ``ptotui/app/rerun.py`` drives it from the App.
"""
