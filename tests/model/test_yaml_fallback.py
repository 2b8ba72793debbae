"""Gap boards and inventories that are not valid YAML keep every entry that can be read (issue 9)."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ptotui.model.location import Location
from ptotui.model.read import sidefiles
from ptotui.model.read.loader import load
from tests.conftest import SAMPLES


def _unquote_one_summary(text: str, gap_id: str, extra: str) -> tuple[str, str, int]:
    """Rewrite ``gap_id``'s folded summary as one plain line with an unquoted ``: `` in it,
    as earlier real gap boards had it. Returns the text, the new summary and the entry's line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- id: {gap_id}")
    at = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("summary:"))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    end = at + 1
    while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) > len(indent):
        end += 1
    summary = " ".join(" ".join(lines[at + 1 : end]).split()) + extra
    lines[at:end] = [f"{indent}summary: {summary}"]
    return "\n".join(lines) + "\n", summary, start + 1


def test_reference_gap_board_with_one_unquoted_colon_keeps_every_summary(reference_bench, tmp_path):
    original = (reference_bench / "gap_board.yaml").read_text()
    strict, none = sidefiles.read_gap_board(original, "gap_board.yaml")
    assert none == [] and len(strict) > 40
    victim = list(strict)[7]
    text, summary, line = _unquote_one_summary(original, victim, " (identity lookup (`indices[row] == row`: skipped)")
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)  # the mutation breaks the file for a strict reader
    board = tmp_path / "bench" / "gap_board.yaml"
    board.parent.mkdir()
    board.write_text(text)

    gaps, warnings = sidefiles.read_gap_board(text, str(board))
    assert list(gaps) == list(strict)
    for gap_id, gap in strict.items():
        if gap_id != victim:
            assert gaps[gap_id] == gap, gap_id  # read as strict YAML reads it
    assert gaps[victim].summary == summary and gaps[victim].blocking_kernels == strict[victim].blocking_kernels
    assert gaps[victim].component == strict[victim].component and gaps[victim].status == strict[victim].status
    assert len(warnings) == 1 and warnings[0].line == line and "1 of" in warnings[0].message

    # Through the loader, on the reference reports: every gap reference keeps its summary.
    with_board = load(Location(reference_bench / "reports", board.parent))
    plain = load(Location(reference_bench / "reports", reference_bench))
    refs = [(k.name, g.id) for k in plain.kernels for g in k.gaps]
    assert refs and [(k.name, g.id) for k in with_board.kernels for g in k.gaps] == refs
    assert sum(1 for w in with_board.warnings if w.file == str(board)) == 1


def test_line_grammar_on_a_broken_entry():
    text = (
        "updated: x\n"
        "gaps:\n"
        "- id: first\n"
        "  component: ptodsl\n"
        "  status: open\n"
        "  summary: lookups (`indices[row] == row`: identity) are\n"
        "    scalar\n"
        "  blocking_kernels:\n"
        "  - a_kernel\n"
        "  - 'b_kernel'\n"
        "- id: second\n"
        "  component: PTOAS\n"
        "  status: resolved\n"
        '  summary: "quoted: fine"\n'
        "  blocking_kernels: [c_kernel, d_kernel]\n"
        "other: 1\n"
    )
    gaps, warnings = sidefiles.read_gap_board(text, "g.yaml")
    assert gaps["first"].summary == "lookups (`indices[row] == row`: identity) are scalar"
    assert gaps["first"].blocking_kernels == ("a_kernel", "b_kernel")
    assert gaps["second"].summary == "quoted: fine" and gaps["second"].blocking_kernels == ("c_kernel", "d_kernel")
    assert gaps["second"].status == "resolved"
    assert [w.line for w in warnings] == [3]


def test_inventory_with_an_unquoted_colon_keeps_the_other_kernels(tmp_path):
    flow = (
        "target: x\n"
        "included:\n"
        "  - {name: a_kernel, family: fam, wave: wave1, phase: phase1, status: green}\n"
        "  - {name: b_kernel, family: fam, wave: wave2, phase: phase3, status: blocked, note: waits: on host}\n"
        "  - {name: c_kernel, family: other, wave: wave1, phase: phase2, status: planned}\n"
    )
    inventory, warnings = sidefiles.read_inventory(flow, "i.yaml")
    assert set(inventory) == {"a_kernel", "b_kernel", "c_kernel"}
    assert inventory["b_kernel"] == {"family": "fam", "wave": "wave2", "phase": "phase3", "status": "blocked"}
    assert [w.line for w in warnings] == [4]
    block = (SAMPLES / "kernel_inventory.yaml").read_text().replace("  status: planned", "  status: planned: later", 1)
    inventory, warnings = sidefiles.read_inventory(block, "i.yaml")
    strict, _ = sidefiles.read_inventory((SAMPLES / "kernel_inventory.yaml").read_text(), "i.yaml")
    assert set(inventory) == set(strict) and len(warnings) == 1


def test_reference_inventory_copy_with_a_broken_line(reference_bench, tmp_path):
    original = (reference_bench / "kernel_inventory.yaml").read_text()
    strict, _ = sidefiles.read_inventory(original, "i.yaml")
    lines = original.splitlines()
    index = next(i for i, line in enumerate(lines) if line.lstrip().startswith("- {name:"))
    lines[index] = lines[index].replace("ops_transformer_path: ", "ops_transformer_path: see: ", 1)
    inventory, warnings = sidefiles.read_inventory("\n".join(lines) + "\n", "i.yaml")
    assert inventory == strict
    assert [w.line for w in warnings] == [index + 1]


def test_unreadable_yaml_with_no_list_still_warns_with_the_line():
    gaps, warnings = sidefiles.read_gap_board("gaps: [\n", "g.yaml")
    assert gaps == {} and warnings[0].line and "invalid YAML" in warnings[0].message


_LINES = st.sampled_from(
    [
        "gaps:",
        "included:",
        "- id: g1",
        "  - id: g2",
        "- {name: k, status: a: b}",
        "  component: ptodsl",
        "    summary: a: b",
        "  summary: >-",
        "      folded text: more",
        "  blocking_kernels:",
        "  - k1",
        "      - k2",
        "  blocking_kernels: [k3, k4",
        "- name: k5",
        "  status: 'quoted",
        "-",
        "  :",
        "#",
        "",
        "other: {",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=25))
def test_line_by_line_reading_never_fails_on_yamlish_text(lines):
    """The reader turns its own exceptions into a "could not be read" warning; that must not happen."""
    text = "\n".join(lines) + "\n"
    for reader in (sidefiles.read_gap_board, sidefiles.read_inventory):
        _, warnings = reader(text, "x.yaml")
        assert not any("could not be read" in w.message for w in warnings), warnings
