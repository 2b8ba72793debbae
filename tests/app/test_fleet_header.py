"""The fleet view's header (ptotui/app/render/fleet_hosts.py): a line per host that fits the
width, made shorter in a deliberate order, never cut in the middle of a word."""

from __future__ import annotations

import pytest
from rich.text import Text

from ptotui.app.render.fleet_hosts import Form, forms, host_lines
from ptotui.model.fleet import Fleet, Host
from ptotui.model.fleetview import FleetView

HOUR = 3600
NOW = 1_764_403_200
FULL = {
    "SoC": "ascend910b",
    "NPU arch": "dav-2201",
    "PTO arch": "a3",
    "toolkit": "9.0.0-beta.1",
    "warmup": "20",
    "repeat": "100",
    "statistic": "median",
}


def host(name: str, last: int, environment: dict[str, str], regressed: int = 0, group: int = 0) -> Host:
    """A host that published hourly until ``last`` seconds before NOW."""
    publishes = [NOW - last - i * HOUR for i in range(5)]
    return Host(
        name,
        f"refs/remotes/origin/ptotui/hosts/{name}",
        "0" * 40,
        publishes[0],
        environment=environment,
        reference_words="snapshot 20261101T080000Z" if regressed else None,
        regressed=[f"kernel_{i}" for i in range(regressed)],
        warnings=["a torn file"] if regressed else [],
        group=group,
        publishes=publishes,
    )


def fleet() -> tuple[FleetView, list[Host]]:
    hosts = [
        host("910b-a", 5 * 60, FULL, regressed=4),
        host("910b-b", 5 * HOUR, {**FULL, "toolkit": "8.5.0"}, regressed=1, group=1),  # stale, another toolkit
        host("310p-lab-c", 20 * 60, {}),
    ]
    view = FleetView()
    view.take(Fleet(hosts, []))
    view.columns.pin("910b-a")
    return view, hosts


def plain(lines: list[Text]) -> list[str]:
    return [line.plain for line in lines]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_at_80_columns_each_line_says_name_short_environment_and_age_without_a_cut(lang: str) -> None:
    from ptotui.model import i18n

    i18n.set_language(lang)
    try:
        view, hosts = fleet()
        lines = host_lines(view, hosts, NOW, 80)
        assert all(line.cell_len <= 80 for line in lines), plain(lines)
        a, b, c = plain(lines)
        assert "…" not in "".join((a, b, c))
        for line, toolkit in ((a, "9.0.0-beta.1"), (b, "8.5.0")):
            assert "ascend910b" in line and toolkit in line and "dav-2201" not in line
        assert a.startswith("★ 910b-a") and ("5m ago" in a or "5m前" in a)
        assert "STALE" in b and "≠env" in b and "5h" in b
        assert ("environment unknown" in c) or ("环境未知" in c)
        # the columns line up: each host's environment starts where the others' do
        assert a.index("ascend910b") == b.index("ascend910b")
    finally:
        i18n.set_language("en")


def test_a_wide_header_says_everything() -> None:
    view, hosts = fleet()
    a, b, _c = plain(host_lines(view, hosts, NOW, 400))
    assert "published 5m ago" in a and "statistic median" in a and "4 regressions since snapshot" in a
    assert "1 warning" in a and "STALE: silent over 3h" in b


def test_the_environment_gives_way_first_the_bench_settings_and_the_shared_fields_before_the_others() -> None:
    view, hosts = fleet()
    hosts[1].environment = {**FULL, "toolkit": "8.5.0", "repeat": "50"}  # the hosts differ in repeat
    steps = forms(hosts)
    fields = [form.fields for form in steps]
    assert fields[:6] == [
        ("SoC", "toolkit", "NPU arch", "PTO arch", "warmup", "repeat", "statistic"),
        ("SoC", "toolkit", "NPU arch", "PTO arch", "warmup", "repeat"),
        ("SoC", "toolkit", "NPU arch", "PTO arch", "repeat"),
        ("SoC", "toolkit", "NPU arch", "repeat"),
        ("SoC", "toolkit", "repeat"),
        ("SoC", "toolkit"),  # the field they differ in went last of these
    ]
    assert steps[6] == Form(fields=("SoC", "toolkit"), warnings=False)
    assert [form.fields for form in steps[-2:]] == [("SoC",), ()]


def test_a_header_narrower_than_the_leanest_form_cuts_the_end_of_the_line() -> None:
    view, hosts = fleet()
    lines = host_lines(view, hosts, NOW, 20)
    a = lines[0].plain
    assert a.startswith("★ 910b-a") and "▼4" in a  # the leanest form: name, age, ▼count
    assert lines[0].overflow == "ellipsis" and lines[0].no_wrap
