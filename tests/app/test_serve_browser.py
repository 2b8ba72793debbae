"""``ptotui serve`` in a real browser: Playwright driving Debian's Chromium.

The terminal draws on a canvas, so the tests read the xterm.js buffer: an init script catches
textual-serve's client object as it is built (it sets ``websocket_url`` on itself first) and
keeps it on ``window``. Without Chromium these tests skip, unless PTOTUI_REQUIRE_BROWSER=1
(.ci/run sets it), where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serve_support import Relay, Served, alive, start_serve

pytestmark = pytest.mark.slow  # a Chromium per test: seconds each

CHROMIUM = os.environ.get("PTOTUI_CHROMIUM", "/usr/bin/chromium")
WAIT_MS = 30_000

EXPOSE_TERMINAL = """
Object.defineProperty(Object.prototype, "websocket_url", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "websocket_url", {value, writable: true, configurable: true, enumerable: true});
    window.__ptotuiClient = this;
  },
});
"""
SCREEN = """() => {
  const client = window.__ptotuiClient;
  if (!client || !client.terminal) return "";
  const buffer = client.terminal.buffer.active;
  const lines = [];
  for (let y = 0; y < client.terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""


def _missing(reason: str) -> None:
    if os.environ.get("PTOTUI_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + " (PTOTUI_REQUIRE_BROWSER=1: the browser tests must run here)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed: pip install -e '.[test]'")
    if not (os.access(CHROMIUM, os.X_OK) or shutil.which(CHROMIUM)):
        _missing(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set PTOTUI_CHROMIUM)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], timeout=WAIT_MS)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(EXPOSE_TERMINAL)
    yield context
    context.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Served]:
    state = tmp_path_factory.mktemp("state") / "triage.json"
    served = start_serve("sample_reports", "--max-sessions", "4", "--read-only", "--state", str(state))
    yield served
    if served.process.poll() is None:
        served.stop()


def screen(page) -> str:
    return page.evaluate(SCREEN)


def wait_for_text(page, text: str) -> None:
    page.wait_for_function(f"(text) => ({SCREEN})().includes(text)", arg=text, timeout=WAIT_MS)


def open_dashboard(context, served: Served):
    page = context.new_page()
    response = page.goto(served.url)
    assert response is not None and response.status == 200
    wait_for_text(page, "_fused")
    return page


def test_the_table_appears_and_no_request_leaves_the_machine(context, served):
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = open_dashboard(context, served)
    wait_for_text(page, "Blockers by layer")
    shown = screen(page)
    for kernel in ("layernorm_gated", "fp8_blockwise_quant", "BOTH-BLOCKED"):
        assert kernel in shown
    assert requests and all(url.startswith(served.base + "/") for url in requests), requests
    # The terminal's font is textual-serve's own file, loaded from this server, not a CDN's.
    assert any(url.endswith("/static/fonts/RobotoMono-VariableFont_wght.ttf") for url in requests)
    assert page.evaluate("[...document.fonts].some((f) => f.family.includes('Roboto Mono') && f.status === 'loaded')")


def test_a_key_sent_through_the_browser_changes_the_screen(context, served):
    page = open_dashboard(context, served)
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.press("i")  # triage: off, since this server is --read-only
    wait_for_text(page, "Read-only: triage is off here.")
    page.keyboard.press("2")  # only the MID tier
    page.wait_for_function(f"() => !({SCREEN})().includes('_fused')", timeout=WAIT_MS)
    assert "int4_weight_dequant_gemm" in screen(page)


def test_no_token_or_a_foreign_origin_is_refused(context, served):
    page = context.new_page()
    response = page.goto(served.base + "/")
    assert response is not None and response.status == 403
    assert "needs its token" in page.inner_text("body")
    # A page on another site that knows the token still cannot open the websocket: its Origin
    # is not the served one. (Playwright answers for evil.example; nothing goes on the network.)
    page.route("http://evil.example/", lambda route: route.fulfill(body="<html><body>evil</body></html>"))
    page.goto("http://evil.example/")
    outcome = page.evaluate(
        """(url) => new Promise((resolve) => {
            const socket = new WebSocket(url);
            socket.onopen = () => resolve("open");
            socket.onclose = (event) => resolve("closed " + event.code);
        })""",
        served.websocket,
    )
    assert outcome == "closed 1006"  # the handshake was refused
    assert not served.children()


def test_the_fifth_tab_is_refused(context, served):
    pages = [open_dashboard(context, served) for _ in range(4)]
    assert len(served.children()) == 4
    fifth = context.new_page()
    response = fifth.goto(served.url)
    assert response is not None and response.status == 503
    assert "All 4 sessions are in use" in fifth.inner_text("body")
    # A websocket opened past the cap (a page loaded just before the fourth tab) is closed
    # with the reason, which the page shows instead of "Session ended".
    reason = pages[0].evaluate(
        """(url) => new Promise((resolve) => {
            const socket = new WebSocket(url);
            socket.onclose = (event) => resolve(event.code + " " + event.reason);
        })""",
        served.websocket,
    )
    assert reason == "1013 All 4 sessions are in use"
    pages[0].close()  # a seat is free again, once the server has seen the tab go
    for _ in range(40):
        response = fifth.goto(served.url)
        if response is not None and response.status == 200:
            break
        fifth.wait_for_timeout(250)
    wait_for_text(fifth, "_fused")


def test_stopping_with_tabs_open_leaves_no_process(context, tmp_path):
    served = start_serve("sample_reports", "--state", str(tmp_path / "triage.json"))
    try:
        pages = [open_dashboard(context, served) for _ in range(2)]
        assert len(served.children()) == 2
        started = served.descendants()
        served.stop()
        assert served.process.returncode == 0
        assert not alive(started)
        pages[0].wait_for_selector("body.-closed")
        assert pages[0].inner_text(".closed-dialog .message") == "ptotui serve stopped"
    finally:
        if served.process.poll() is None:
            served.process.kill()


def test_behind_ssh_forwarding_on_another_port(context, tmp_path):
    relay = Relay()  # the laptop's end of `ssh -L PORT:127.0.0.1:8080`, on another port
    public = f"http://localhost:{relay.port}"
    served = start_serve("sample_reports", "--public-url", public, "--state", str(tmp_path / "triage.json"))
    try:
        relay.start(served.port)
        assert served.url.startswith(public + "/?token=")
        page = context.new_page()
        page.goto(served.url)
        wait_for_text(page, "_fused")  # page, files and websocket all through the relay
    finally:
        served.stop()
        relay.close()
