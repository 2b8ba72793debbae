"""``ptotui demo``: a simulated bench run the app watches.

The sample reports are copied to a temporary directory and rewritten there the
way the real generators do it: in place, not atomically, in several chunks,
JSON first and markdown a moment later, while kernels move between tiers.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ptotui.commands.common import lang_of, positive, thresholds_of
from ptotui.model.i18n import _
from ptotui.model.location import Location, bundled_samples
from ptotui.model.options import DashboardOptions
from ptotui.model.read import writers

# A story step changes the regression and state documents in place; the generator makes its numbers.
Story = Callable[[dict[str, Any], dict[str, Any], random.Random], None]


def _kernel(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((k for k in data["kernels"] if k["name"] == name), None)


def _set_range(kernel: dict, row: dict | None) -> None:
    """The state matrix's range of the variants' ratios, as the generator writes it."""
    pcts = [v["baseline_over_pto_pct"] for v in kernel["variants"] if v.get("baseline_over_pto_pct")]
    if row is not None:
        row["baseline_over_pto_range"] = f"{min(pcts):.1f}%..{max(pcts):.1f}%" if pcts else "n/a"


def _set_ratio(reg: dict, state: dict, rng: random.Random, name: str, pct: float) -> None:
    kernel = _kernel(reg, name)
    if kernel is None:
        return
    for variant in kernel["variants"]:
        if variant.get("pto_median_ms"):
            variant["baseline_over_pto_pct"] = pct * rng.uniform(0.98, 1.02)
            variant["baseline_median_ms"] = variant["pto_median_ms"] * variant["baseline_over_pto_pct"] / 100
    _set_range(kernel, _kernel(state, name))


def _set_status(
    reg: dict,
    state: dict,
    rng: random.Random,
    name: str,
    side: str,
    status: str,
    klass: str | None,
    reason: str | None,
) -> None:
    kernel, row = _kernel(reg, name), _kernel(state, name)
    if kernel is None or row is None:
        return
    kernel[f"{side}_status"] = row[f"{side}_status"] = status
    kernel[f"{side}_reason"] = row[f"{side}_reason"] = reason
    if klass:
        row["primary_class"] = klass
    for variant in kernel["variants"]:
        variant[f"{side}_status"] = status
        variant[f"{side}_correct"] = status == "ok"
        if status == "blocked":
            variant[f"{side}_median_ms"] = None
            variant["baseline_over_pto_pct"] = None
            variant.setdefault("baseline_reason", kernel.get("baseline_reason"))
            variant.setdefault("pto_reason", kernel.get("pto_reason"))
            variant[f"{side}_reason"] = reason
        else:
            variant[f"{side}_median_ms"] = variant.get(f"{side}_median_ms") or rng.uniform(0.2, 0.6)
            variant.pop("baseline_reason", None)
            variant.pop("pto_reason", None)
            baseline, pto = variant.get("baseline_median_ms"), variant.get("pto_median_ms")
            if baseline and pto:  # both sides ran: the generator writes their ratio
                variant["baseline_over_pto_pct"] = baseline / pto * 100
    _set_range(kernel, row)


def _set_correct(reg: dict, state: dict, name: str, correct: bool, klass: str) -> None:
    kernel, row = _kernel(reg, name), _kernel(state, name)
    if kernel is None or row is None:
        return
    for variant in kernel["variants"]:
        variant["pto_correct"] = correct
    row["primary_class"] = klass


def _paged_gets_baseline(reg: dict, state: dict, rng: random.Random) -> None:
    _set_status(reg, state, rng, "paged_kv_gather", "baseline", "ok", "green + tile-first", None)
    _set_ratio(reg, state, rng, "paged_kv_gather", 52.0)


STORY: list[tuple[str, Story]] = [
    ("rotary_embedding_3d climbs to MID", lambda r, s, g: _set_ratio(r, s, g, "rotary_embedding_3d", 34.0)),
    (
        "layernorm_gated PTO starts failing to lower",
        lambda r, s, g: _set_status(
            r,
            s,
            g,
            "layernorm_gated",
            "pto",
            "blocked",
            "blocked by PTOAS lowering",
            "PTO compile failed: ptoas exited 1 after the tile-size change [tile=256]",
        ),
    ),
    (
        "segmented_argsort output fixed",
        lambda r, s, g: _set_correct(r, s, "segmented_argsort", True, "green + tile-first"),
    ),
    ("softmax_online_fused dips", lambda r, s, g: _set_ratio(r, s, g, "softmax_online_fused", 84.0)),
    (
        "layernorm_gated lowers again",
        lambda r, s, g: _set_status(r, s, g, "layernorm_gated", "pto", "ok", "green + tile-first", None),
    ),
    (
        "paged_kv_gather gets a host baseline",
        _paged_gets_baseline,
    ),
    ("rotary_embedding_3d falls back", lambda r, s, g: _set_ratio(r, s, g, "rotary_embedding_3d", 27.5)),
    (
        "segmented_argsort regresses",
        lambda r, s, g: _set_correct(r, s, "segmented_argsort", False, "blocked by PTO correctness gap"),
    ),
    ("softmax_online_fused recovers", lambda r, s, g: _set_ratio(r, s, g, "softmax_online_fused", 91.0)),
    (
        "paged_kv_gather baseline lost again",
        lambda r, s, g: _set_status(
            r,
            s,
            g,
            "paged_kv_gather",
            "baseline",
            "blocked",
            "blocked by host baseline/runtime gap",
            "Baseline binding disappeared after the driver rollback.\n"
            "[ERROR] EZ3002 op type PagedGather is not registered",
        ),
    ),
]


def write_chunked(path: Path, text: str, chunks: int = 3, pause: float = 0.02) -> None:
    """Truncate, then write in pieces with pauses: a reader can see the torn middle."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = max(len(text) // chunks, 1)
    with open(path, "w", encoding="utf-8") as handle:
        for start in range(0, len(text), size):
            handle.write(text[start : start + size])
            handle.flush()
            time.sleep(pause)


class BenchSimulator:
    """Rewrites a reports directory on a timer, one story step at a time."""

    def __init__(self, bench: Path, interval: float = 2.0, seed: int = 7) -> None:
        self.bench = bench
        self.reports = bench / "reports"
        self.interval = interval
        self.random = random.Random(seed)  # noqa: S311 - simulated latencies, not secrets
        self.step = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ptotui-demo", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def rewrite(self) -> str:
        reg = json.loads((self.reports / "regression_latest.json").read_text())
        state = json.loads((self.reports / "kernel_state_matrix_latest.json").read_text())
        label, change = STORY[self.step % len(STORY)]
        change(reg, state, self.random)
        self.step += 1
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        reg["generated_at"] = state["generated_at"] = stamp
        write_chunked(self.reports / "regression_latest.json", writers.dump_json(reg))
        time.sleep(0.05)  # the markdown twin lands a moment later
        write_chunked(self.reports / "regression_latest.md", writers.regression_md(reg))
        write_chunked(self.reports / "regression_latest.csv", writers.regression_csv(reg))
        write_chunked(self.reports / "kernel_state_matrix_latest.json", writers.dump_json(state))
        write_chunked(self.reports / "kernel_state_matrix_latest.md", writers.state_md(state))
        if self.step % 3 == 0:
            writers.write_in_place(self.reports / f"kernel_state_matrix_{stamp}.json", writers.dump_json(state))
        return label

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.rewrite()
            except OSError:
                continue  # the temporary tree is being torn down


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--interval", type=positive, default=2.0, metavar="S", help=_("seconds between rewrites"))
    parser.add_argument(
        "--state", metavar="FILE", help=_("triage state file (default: one in the demo's temporary directory)")
    )


def _leave_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through the finally that removes the temporary tree


def run(args: argparse.Namespace) -> int:
    """The demo's reports, and by default its triage file, live in a temporary directory
    that is removed however the demo ends: q, Ctrl+C, SIGTERM or SIGHUP. (The dashboard
    turns SIGTERM/SIGHUP into a normal exit while it runs; before and after it, these
    handlers do.) The user's own triage file is used only when --state names it."""
    from ptotui.app.factory import make_app

    previous = {signum: signal.signal(signum, _leave_on_signal) for signum in (signal.SIGTERM, signal.SIGHUP)}
    workdir = Path(tempfile.mkdtemp(prefix="ptotui-demo-"))
    try:
        bench = workdir / "bench"
        shutil.copytree(bundled_samples(), bench)
        simulator = BenchSimulator(bench, interval=args.interval)
        # The demo's settings: --lang, --high and --mid as chosen (the settings file included),
        # neither the columns nor git history.
        thresholds = thresholds_of(args)
        options = DashboardOptions(
            lang=lang_of(args),
            high=thresholds.high,
            mid=thresholds.mid,
            state=Path(args.state).expanduser() if args.state else workdir / "triage.json",
            git=False,
        )
        app = make_app(Location(bench / "reports", bench), options)
        simulator.start()
        try:
            app.run()
        finally:
            for signum in previous:  # Textual leaves them at the default (die) on exit
                signal.signal(signum, _leave_on_signal)
            simulator.stop()
        return app.return_code or 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
