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


# Plain characters mixed with what terminals act on: 7- and 8-bit introducers, terminators, C0/C1.
TERMINAL_BYTES = st.sampled_from(["\x1b", "\x9b", "\x9d", "\x90", "\x07", "\x9c", "[", "]", ";", "2", "\\", "\r", "\t"])
hostile_text = st.text(alphabet=st.characters() | TERMINAL_BYTES)


@given(hostile_text)
def test_clean_output_never_holds_escape_or_control(text):
    out = clean(text)
    assert "\x1b" not in out and "\x9b" not in out
    assert all(ch == "\n" or ch.isprintable() or ch in "\u2028\u2029" or ord(ch) > 0x9F for ch in out)


def test_one_line_folds_and_cuts():
    assert one_line("a\n  b\tc", 0) == "a b c"
    assert one_line("abcdef", 4) == "abc…"


plain = st.text(alphabet=st.characters(codec="ascii", categories=["L", "N", "Zs"]), max_size=10)
csi = st.builds(
    lambda intro, params, final: intro + params + final,
    st.sampled_from(["\x1b[", "\x9b"]),
    st.text(alphabet="0123456789;?", max_size=8),
    st.sampled_from(list("@ABCDHJKSTfhlmnsu~")),
)
osc = st.builds(
    lambda intro, payload, end: intro + payload + end,
    st.sampled_from(["\x1b]", "\x9d", "\x1bP", "\x90"]),
    st.text(alphabet=st.characters(codec="ascii", categories=["L", "N", "P", "Zs"]), max_size=20),
    st.sampled_from(["\x07", "\x1b\\", "\x9c"]),
)


@given(plain, st.one_of(csi, osc), plain)
def test_a_whole_sequence_goes_with_its_parameters(before, sequence, after):
    # Not only the introducer: "31m" or "2;title" left behind would still be junk on screen.
    assert clean(before + sequence + after) == before + after
