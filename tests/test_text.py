from hypothesis import given
from hypothesis import strategies as st

from ptotui.model.text import clean, one_line


def test_escape_sequences_and_controls_are_removed():
    assert clean("a\x1b]2;TITLE\x1b\\b") == "ab"
    assert clean("x\x1b[31mred\x1b[0m") == "xred"
    assert clean("c1\x9b31mz") == "c1z"
    assert clean("bi\u202edi\u2066") == "bidi"
    assert clean("tab\there") == "tab here"


def test_markup_and_newlines_are_kept_literally():
    assert clean("[ERROR] x [/] [@click=app.quit]y[/]\nnext") == "[ERROR] x [/] [@click=app.quit]y[/]\nnext"


@given(st.text())
def test_clean_output_never_holds_escape_or_control(text):
    out = clean(text)
    assert "\x1b" not in out and "\x9b" not in out
    assert all(ch == "\n" or ch.isprintable() or ch in "\u2028\u2029" or ord(ch) > 0x9F for ch in out)


def test_one_line_folds_and_cuts():
    assert one_line("a\n  b\tc", 0) == "a b c"
    assert one_line("abcdef", 4) == "abc…"
