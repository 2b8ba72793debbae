"""What ``y`` and ``Y`` copy to the clipboard (OSC 52): a kernel's name, or its reasons as text.

Report text is untrusted: what is copied is cleaned of control characters (a reason pasted into a
terminal or an issue must not carry escape sequences), and the notice saying so is one short line.
"""

from __future__ import annotations

from ptotui.model.i18n import _
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel

NOTICE_CHARS = 60  # of the copied text, in the notice


def reasons_text(kernel: Kernel) -> str:
    """The kernel's reasons and limitations, one per line (``PTO: …``, ``baseline: …``); empty
    when the reports give none."""
    lines = []
    for label, reason in (("PTO", kernel.pto_reason), (_("baseline"), kernel.baseline_reason)):
        if reason:
            lines.append(f"{label}: {clean(reason)}")
    lines.extend(f"{_('limitation')}: {clean(limit)}" for limit in kernel.limitations if limit)
    return "\n".join(lines)


def copied_notice(what: str, text: str) -> str:
    """``Copied the name: softmax_online_fused`` (the text cut to one short line)."""
    return _("Copied {what}: {text}").format(what=what, text=one_line(clean(text), NOTICE_CHARS))


def nothing_to_copy() -> str:
    """``y``/``Y`` where no kernel is under the cursor (a blocker pane's heading, no rows)."""
    return _("Nothing to copy here: move to a kernel first.")


def copy_of(kernel: Kernel, what: str) -> tuple[str | None, str]:
    """What ``y`` (``what`` "name") or ``Y`` ("reasons") copies of ``kernel``, and the notice that
    says so; None to copy when the reports give no reason."""
    if what == "name":
        name = clean(kernel.name)
        return name, copied_notice(_("the name"), name)
    text = reasons_text(kernel)
    if not text:
        return None, _("{kernel}: the reports give no reason to copy").format(kernel=clean(kernel.name))
    return text, copied_notice(_("the reasons"), text)
