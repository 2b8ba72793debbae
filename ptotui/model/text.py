"""Make untrusted report text safe to show in a terminal.

Reasons and error dumps come from other programs. They may carry ANSI/OSC/DCS
escape sequences (which would reach the terminal through Rich ``Text``), C0/C1
control bytes, and bidi overrides that visually reorder a line. Newlines are
kept: multi-line host error dumps are meaningful and the display layer decides
how to fold them.
"""

from __future__ import annotations

import re

# 7-bit and 8-bit CSI / OSC / DCS / SOS / PM / APC sequences, then lone ESC pairs.
_ESCAPES = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]                  # CSI ... final byte
  | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)  # OSC/DCS/SOS/PM/APC ... ST
  | \x1b[ -/]*[0-~]?                                   # other ESC sequences (or a lone ESC)
    """,
    re.VERBOSE | re.DOTALL,
)
# C0 controls except \n and \t, DEL, C1 controls, bidi embeddings/overrides/isolates.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(value: object) -> str:
    """Return ``value`` as a string with escape sequences and controls removed."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    text = text.replace("\r\n", "\n").replace("\t", " ")
    text = _ESCAPES.sub("", text)
    return _CONTROLS.sub("", text)


# Every control, newline and tab included, for a text that must stay one line as typed.
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(value: object) -> str:
    """``value`` with each control character written as an escape (``\\x1b``, ``\\x01``,
    ``\\u202e``): for a name a person typed (a PATH) echoed in an error, where the terminal
    would run an ESC sequence and :func:`clean` would hide which name it was."""
    text = value if isinstance(value, str) else str(value)
    return text if text.isprintable() else _ANY_CONTROL.sub(_escape, text)


def clean_optional(value: object) -> str | None:
    """Like :func:`clean` but keeps ``None`` (and the literal ``"None"``) as ``None``."""
    if value is None:
        return None
    text = clean(value).strip()
    return None if text in ("", "None", "null") else text


def one_line(text: str | None, limit: int = 0) -> str:
    """Fold a multi-line text into one line, optionally cut to ``limit`` characters."""
    if not text:
        return ""
    if limit:  # fold only a head long enough for ``limit`` characters: a reason can be 50 MB
        take = 2 * limit + 16
        while True:
            folded = " ".join(text[:take].split())
            if len(folded) > limit or take >= len(text):
                break
            take *= 4
    else:
        folded = " ".join(text.split())
    if limit and len(folded) > limit:
        return folded[: max(limit - 1, 0)] + "…"
    return folded
