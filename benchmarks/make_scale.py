"""Write a large bench tree: N kernels x 3 variants (JSON + markdown + state matrix).

The kernels are the sample kernels repeated under new names, so every tier and
class is represented in the sample's proportions. 10,000 kernels is ~30 MB.
Run: python benchmarks/make_scale.py OUT_DIR [--kernels 10000]
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptotui.model.read import writers  # noqa: E402

SAMPLES = ROOT / "sample_reports" / "bench"


def _three_variants(kernel: dict) -> None:
    variants = kernel["variants"]
    while len(variants) < 3:
        variants.append(copy.deepcopy(variants[-1]))


def build(out: Path, count: int) -> Path:
    bench = out / "bench"
    if bench.exists():
        shutil.rmtree(bench)
    (bench / "reports").mkdir(parents=True)
    reg = json.loads((SAMPLES / "reports" / "regression_latest.json").read_text())
    state = json.loads((SAMPLES / "reports" / "kernel_state_matrix_latest.json").read_text())
    templates = list(zip(reg["kernels"], state["kernels"], strict=True))
    reg_out, state_out = [], []
    for index in range(count):
        kernel, row = copy.deepcopy(templates[index % len(templates)])
        name = f"{kernel['name']}_{index:05d}"
        kernel["name"] = row["name"] = name
        kernel["report_path"] = row["report_path"] = f"/srv/bench/generated/{kernel['family']}/{name}/report.json"
        _three_variants(kernel)
        for offset, variant in enumerate(kernel["variants"]):
            if variant.get("baseline_over_pto_pct"):
                variant["baseline_over_pto_pct"] += (index % 7) * 0.3 + offset * 0.1
        reg_out.append(kernel)
        state_out.append(row)
    reg["kernels"], state["kernels"] = reg_out, state_out
    writers.write_regression(bench / "reports", reg, csv_too=False)
    writers.write_state(bench / "reports", state)
    for name in ("gap_board.yaml", "kernel_inventory.yaml"):
        shutil.copy(SAMPLES / name, bench / name)
    return bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path, help="directory to create; the bench tree goes in it")
    parser.add_argument("--kernels", type=int, default=10_000, help="how many kernels (default: %(default)s)")
    args = parser.parse_args()
    bench = build(args.out, args.kernels)
    size = sum(p.stat().st_size for p in bench.rglob("*") if p.is_file())
    print(f"{bench}: {args.kernels} kernels, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
