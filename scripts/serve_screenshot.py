"""Take the README's browser screenshot of `ptotui serve`: screenshots/serve-browser.png.

Needs Chromium (apt-get install chromium) and Playwright (pip install -e '.[test]').
Run from the repository root: python scripts/serve_screenshot.py
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots" / "serve-browser.png"


def main() -> int:
    state = Path(tempfile.mkdtemp(prefix="ptotui-shot-")) / "triage.json"
    server = subprocess.Popen(
        [sys.executable, "-m", "ptotui", "serve", "sample_reports", "--port", "0", "--state", str(state)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        for line in server.stdout or ():
            if match := re.search(r"Open: (\S+)", line):
                url = match.group(1)
                break
        if url is None:
            raise SystemExit("ptotui serve printed no URL")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 760})
            page.goto(url, timeout=30_000)
            page.wait_for_selector("body.-first-byte", timeout=30_000)
            page.wait_for_timeout(10_000)  # the first rows; the start-up toast comes and goes (8 s)
            page.keyboard.press("Escape")
            page.wait_for_timeout(500)
            page.screenshot(path=str(OUT))
            browser.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(15)
    print(OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
