"""The floor: a minimal Textual app that only shows the regression rows (no model, no watching)."""

import json
import sys

from textual.app import App
from textual.widgets import DataTable


class Floor(App):
    def compose(self):
        yield DataTable()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("Kernel", "Baseline", "PTO", "Baseline / PTO")
        for kernel in json.load(open(sys.argv[1]))["kernels"]:
            for v in kernel["variants"]:
                table.add_row(kernel["name"], v["baseline_status"], v["pto_status"], str(v["baseline_over_pto_pct"]))


if __name__ == "__main__":
    Floor().run()
