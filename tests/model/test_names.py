"""Names cut in the middle, no two rows alike (issue 40 item 14)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ptotui.model.present.names import cut_names

REAL = [  # names of the real tree that an end cut at 16 cells showed alike
    "matmul_all_reduce",
    "matmul_all_reduce_add_rms_norm",
    "matmul_all_reduce_add_rms_norm_inplace",
    "moe_token_unpermute",
    "moe_token_unpermute_grad",
    "moe_token_unpermute_with_routing_map",
    "moe_token_unpermute_with_routing_map_grad",
]


def test_a_long_name_is_cut_in_the_middle_keeping_its_last_part():
    assert cut_names(["moe_token_unpermute_grad"], 13) == {"moe_token_unpermute_grad": "moe_tok…_grad"}
    assert "matmul_all_reduce" not in cut_names(REAL, 17)  # it fits: not cut


def test_no_two_names_look_the_same_at_16_cells():
    shown = cut_names(REAL, 16)
    drawn = [shown.get(n, n) for n in REAL]
    assert len(set(drawn)) == len(REAL), drawn
    assert all(len(d) <= 16 for d in drawn)
    assert shown["moe_token_unpermute_with_routing_map_grad"].endswith("_grad")


def test_names_that_differ_only_in_the_middle_keep_that_part():
    names = ["flash_attention_v1_forward_kernel", "flash_attention_v2_forward_kernel"]
    shown = cut_names(names, 16)
    assert len(set(shown.values())) == 2 and all(len(s) == 16 for s in shown.values()), shown


@given(st.lists(st.text("ab_", min_size=1, max_size=30), min_size=1, max_size=12, unique=True), st.integers(8, 24))
def test_cuts_fit_and_stay_apart_when_the_names_do(names, width):
    shown = cut_names(names, width)
    drawn = [shown.get(n, n) for n in names]
    assert all(len(d) <= width for d in drawn)
    assert all(n not in shown for n in names if len(n) <= width)
