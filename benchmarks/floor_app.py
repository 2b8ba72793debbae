"""The floor: a minimal Textual app that only shows the regression rows (no model, no watching).

One row per kernel, as ptotui draws them (50 on the reference snapshot, not one per variant):
the name, the two statuses and the Baseline / PTO range over its variants.
"""

import json
import sys

from textual.app import App
from textual.widgets import DataTable


def ratio_range(variants):
    ratios = [v["baseline_over_pto_pct"] for v in variants if isinstance(v.get("baseline_over_pto_pct"), int | float)]
    return f"{min(ratios):.1f}%..{max(ratios):.1f}%" if ratios else ""


class Floor(App):
    def compose(self):
        yield DataTable()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("Kernel", "Baseline", "PTO", "Baseline / PTO")
        for kernel in json.load(open(sys.argv[1]))["kernels"]:
            variants = kernel.get("variants") or []
            table.add_row(kernel["name"], kernel["baseline_status"], kernel["pto_status"], ratio_range(variants))


if __name__ == "__main__":
    Floor().run()
