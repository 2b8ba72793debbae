"""The YAML side files as parsed before (ptotui/model/read/yamlcache.py): kept by content
beside the triage file, read back instead of parsing, and never trusted blindly."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from ptotui.model.read import yamlcache
from ptotui.model.read.sidefiles import read_gap_board

BOARD = "gaps:\n  - id: g1\n    component: ptoas\n    status: open\n    summary: tiles\n"


@pytest.fixture
def cache(tmp_path: Path):
    directory = tmp_path / "state" / "cache"
    yamlcache.use(directory)
    yield directory
    yamlcache.use(None)


def _counting(result):
    calls: list[str] = []

    def parse(text: str):
        calls.append(text)
        return result(text) if callable(result) else result

    return parse, calls


def test_a_text_parsed_once_is_read_back_and_a_changed_text_is_parsed(cache: Path) -> None:
    parse, calls = _counting(lambda text: {"gaps": [{"id": text.strip()}]})
    assert yamlcache.parsed("a", parse) == {"gaps": [{"id": "a"}]}
    assert yamlcache.parsed("a", parse) == {"gaps": [{"id": "a"}]}
    assert calls == ["a"]
    assert yamlcache.parsed("b", parse) == {"gaps": [{"id": "b"}]}
    assert calls == ["a", "b"] and len(list(cache.glob("*.json"))) == 2


@pytest.mark.parametrize("content", [b"{torn", b"", b"[1]", b'{"schema": "other", "data": 1}'])
def test_a_cache_file_that_cannot_be_used_is_parsed_again_and_rewritten(cache: Path, content: bytes) -> None:
    parse, calls = _counting({"gaps": []})
    yamlcache.parsed("x", parse)
    (held,) = cache.glob("*.json")
    held.write_bytes(content)
    assert yamlcache.parsed("x", parse) == {"gaps": []} and len(calls) == 2
    assert yamlcache.parsed("x", parse) == {"gaps": []} and len(calls) == 2  # written anew


def test_a_cache_file_that_is_a_fifo_is_not_waited_on(cache: Path) -> None:
    parse, calls = _counting({"gaps": []})
    yamlcache.parsed("x", parse)
    (held,) = cache.glob("*.json")
    held.unlink()
    os.mkfifo(held)
    assert yamlcache.parsed("x", parse) == {"gaps": []} and len(calls) == 2


@pytest.mark.parametrize(
    "data",
    [
        {"when": datetime.date(2026, 3, 21)},
        {1: "a key that is no string"},
        {"x": float("inf")},
        {"x": 2**70},
        {"x": {1, 2}},
    ],
    ids=["date", "int-key", "inf", "huge-int", "set"],
)
def test_what_json_cannot_hold_as_it_is_is_not_kept(cache: Path, data) -> None:
    parse, calls = _counting(data)
    assert yamlcache.parsed("x", parse) == data
    assert yamlcache.parsed("x", parse) == data and len(calls) == 2
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_read_only_reads_what_is_there_and_writes_nothing(cache: Path) -> None:
    parse, calls = _counting({"gaps": []})
    yamlcache.use(cache, writable=False)
    yamlcache.parsed("x", parse)
    assert not cache.exists()
    yamlcache.use(cache)
    yamlcache.parsed("x", parse)
    yamlcache.use(cache, writable=False)
    yamlcache.parsed("x", parse)
    assert len(calls) == 2  # the second read-only one read what the writable one kept


def test_only_the_newest_are_kept(cache: Path) -> None:
    parse, _calls = _counting({"gaps": []})
    for number in range(yamlcache.KEPT + 5):
        yamlcache.parsed(f"text {number}", parse)
    assert len(list(cache.glob("*.json"))) == yamlcache.KEPT


def test_the_gap_board_reads_the_same_from_the_cache_and_invalid_yaml_is_not_kept(cache: Path) -> None:
    first = read_gap_board(BOARD, "gap_board.yaml")
    again = read_gap_board(BOARD, "gap_board.yaml")
    assert first == again and list(again[0]) == ["g1"] and len(list(cache.glob("*.json"))) == 1
    broken = BOARD + "  - id: [unclosed\n"
    gaps, warnings = read_gap_board(broken, "gap_board.yaml")
    assert "g1" in gaps and warnings  # read entry by entry, with its warning, as without a cache
    assert read_gap_board(broken, "gap_board.yaml") == (gaps, warnings)
    assert len(list(cache.glob("*.json"))) == 1


def _alias_bomb(levels: int) -> str:
    """Each level a list of ten aliases of the one below: 10**(levels + 1) leaves in a few hundred bytes."""
    lines = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, levels + 1)]
    return "\n".join([*lines, f"gaps: *a{levels}", ""])


def _sizes(directory: Path) -> list[int]:
    return [p.stat().st_size for p in directory.rglob("*") if p.is_file()] if directory.exists() else []


def test_an_alias_bomb_is_refused_with_one_warning_and_nothing_kept(cache: Path) -> None:
    """Issue 40: 1.3 KB of nested aliases in gap_board.yaml took ~35 s to walk and left a 469 MB
    cache file, at every start. 10**6 leaves here (1.1 million nodes): over the budget."""
    gaps, warnings = read_gap_board(_alias_bomb(5), "bench/gap_board.yaml")
    assert gaps == {}
    assert [(w.file, w.message) for w in warnings] == [
        ("bench/gap_board.yaml", "not read: its aliases expand to more than 1,000,000 nodes")
    ]
    assert sum(_sizes(cache)) < 1 << 20


def test_a_node_that_contains_itself_is_refused_not_walked_for_ever(cache: Path) -> None:
    gaps, warnings = read_gap_board("gaps: &a [*a]\n", "bench/gap_board.yaml")
    assert gaps == {} and len(warnings) == 1 and "contains it" in warnings[0].message


def test_aliases_within_the_budget_are_read_as_before(cache: Path) -> None:
    text = "common: &c {component: ptoas, status: open}\ngaps:\n  - {id: g1, <<: *c}\n  - {id: g2, <<: *c}\n"
    gaps, warnings = read_gap_board(text, "gap_board.yaml")
    assert not warnings and [g.component for g in gaps.values()] == ["ptoas", "ptoas"]


def test_no_cache_file_is_written_over_the_cap_and_a_big_one_left_there_goes(cache: Path) -> None:
    big = {"gaps": [{"id": "g", "summary": "x" * (yamlcache.MAX_BYTES + 1)}]}
    parse, calls = _counting(big)
    assert yamlcache.parsed("big", parse) == big
    assert not _sizes(cache)
    small, _ = _counting({"gaps": []})
    yamlcache.parsed("small", small)
    (held,) = cache.glob("*.json")
    held.write_bytes(b" " * (yamlcache.MAX_BYTES + 1))  # as an older version may have left it
    assert yamlcache.parsed("small", small) == {"gaps": []}
    assert max(_sizes(cache)) < yamlcache.MAX_BYTES
