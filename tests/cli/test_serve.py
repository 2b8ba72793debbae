"""``ptotui serve`` without a browser: the token, the Origin check, the session cap, the command
it spawns, and the app's read-only mode. The browser tests are in test_serve_browser.py."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import signal
import stat
import sys
from collections.abc import Iterator

import aiohttp
import pytest

from ptotui.cli import UsageError, main
from ptotui.commands.serve import app_command, origin_of, read_token_file, served_origins, token_matches
from ptotui.model.options import DashboardOptions
from tests.helpers import PATIENCE, build, loaded, table
from tests.serve_support import Served, alive, start_serve

TIMEOUT = aiohttp.ClientTimeout(total=30)


def test_token_is_compared_whole():
    token = "A" * 32
    assert token_matches(token, token)
    assert not token_matches("A" * 31, token)
    assert not token_matches("", token)
    assert not token_matches("A" * 31 + "é", token)  # not ASCII: refused, not an exception


def test_origin_as_a_browser_writes_it():
    assert origin_of("http://localhost:9000/ptotui") == "http://localhost:9000"
    assert origin_of("https://team.example/ptotui/") == "https://team.example"
    assert origin_of("http://team.example:80") == "http://team.example"
    assert origin_of("http://[::1]:8080") == "http://[::1]:8080"


def test_served_origins():
    assert served_origins("http://127.0.0.1:8080", "127.0.0.1", 8080, explicit=False) == {
        "http://127.0.0.1:8080",
        "http://localhost:8080",
    }
    # Behind ssh -L 9000 or a proxy, only the address people open.
    assert served_origins("http://localhost:9000", "127.0.0.1", 8080, explicit=True) == {"http://localhost:9000"}


def test_the_spawned_command_quotes_every_word(tmp_path):
    reports = tmp_path / "a b; touch $(echo pwned) `id`"
    args = argparse.Namespace(
        path=str(reports),
        state=str(tmp_path / "it's.json"),
        config=None,
        lang="zh",
        high=None,
        mid=25.0,
        ratio_pp=None,
        poll=True,
        read_only=True,
        compare=["origin/main", "../other host"],
        filter="[ERROR] $x",
        no_git=True,
    )
    command = app_command(DashboardOptions.from_args(args))
    assert shlex.split(command) == [
        "exec",
        sys.executable,
        "-m",
        "ptotui",
        str(reports),
        "--filter",
        "[ERROR] $x",
        "--poll",
        "--no-git",
        "--compare",
        "origin/main",
        "--compare",
        "../other host",
        "--state",
        str(tmp_path / "it's.json"),
        "--read-only",
        "--lang",
        "zh",
        "--mid",
        "25.0",
    ]


def test_serve_passes_the_dashboard_flags_on():
    from ptotui.cli import build_parser

    args = build_parser("serve").parse_args(["--no-git", "--compare", "HEAD~1", "--filter", "gemm", "--read-only"])
    words = shlex.split(app_command(DashboardOptions.from_args(args)))
    assert words[words.index("--compare") + 1] == "HEAD~1"
    assert words[words.index("--filter") + 1] == "gemm"
    assert {"--no-git", "--read-only"} <= set(words) and "--poll" not in words


def test_serve_tabs_start_no_runner_unless_allowed():
    from ptotui.cli import build_parser
    from ptotui.commands.serve import tab_options

    def words(*argv: str) -> list[str]:
        return shlex.split(app_command(tab_options(build_parser("serve").parse_args(list(argv)))))

    assert "--no-runs" in words()
    assert "--no-runs" not in words("--allow-runs", "--runner", "my_runner {spec}")
    assert words("--allow-runs", "--runner", "r {spec}")[-2:] == ["--runner", "r {spec}"]
    assert "--no-runs" in words("--allow-runs", "--read-only")  # read-only wins


def test_token_file_is_created_private_then_reused(tmp_path):
    path = tmp_path / "token"
    token = read_token_file(path)
    assert len(token) >= 16
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_token_file(path) == token
    path.write_text("short\n")
    with pytest.raises(UsageError):
        read_token_file(path)


@pytest.mark.parametrize(
    "flags", [["--max-sessions", "0"], ["--public-url", "ftp://host/"], ["--port", "70000"], ["--bogus"]]
)
def test_bad_serve_flags_exit_2_with_one_line(flags, capsys):
    assert main(["serve", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ptotui: error:") and err.count("\n") == 1


async def test_read_only_app_turns_the_triage_keys_off(sample_location, tmp_path):
    state = tmp_path / "triage.json"
    app = build(sample_location, state=state, read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        table(app).focus_kernel("fp8_blockwise_quant")
        await pilot.press("i", "n")
        await pilot.pause()
        assert app.session.triage is not None and not app.session.triage.entries
        assert app.screen is app.main  # no note editor
        assert any("Read-only" in str(n.message) for n in app._notifications)
    assert not state.exists()


# -- a real server, spoken to as a browser would -----------------------------------------


@pytest.fixture(scope="module")
def one_seat(tmp_path_factory) -> Iterator[Served]:
    """A read-only server with room for one session."""
    state = tmp_path_factory.mktemp("state") / "triage.json"
    served = start_serve("sample_reports", "--max-sessions", "1", "--read-only", "--state", str(state))
    yield served
    if served.process.poll() is None:
        served.stop()


async def test_the_page_needs_the_token(one_seat):
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        for url in (one_seat.base + "/", one_seat.base + "/?token=" + "x" * len(one_seat.token)):
            async with http.get(url) as response:
                assert response.status == 403
                assert "needs its token" in await response.text()
        async with http.get(one_seat.url) as response:
            assert response.status == 200
            page = await response.text()
            policy = response.headers["Content-Security-Policy"]
    # Nothing from another host: relative files only, and the browser is told so.
    assert "//" not in page.replace(one_seat.websocket.split("/ws/")[0], "")
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "https:" not in policy


async def test_the_websocket_needs_the_token_and_the_served_origin(one_seat):
    good = {"Origin": one_seat.base}
    wrong_token = one_seat.websocket[: -len(one_seat.token)] + "y" * len(one_seat.token)
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        for url, headers in (
            (wrong_token, good),
            (one_seat.websocket, {"Origin": "http://evil.example"}),
            (one_seat.websocket, {"Origin": one_seat.base.replace("127.0.0.1", "127.0.0.1.nip.io")}),
            (one_seat.websocket, {}),  # no Origin at all
        ):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(url, headers=headers)
            assert refused.value.status == 403
    assert not one_seat.children()  # a refused connection starts no app


async def read_screen(ws: aiohttp.ClientWebSocketResponse, needle: bytes, timeout: float = 30) -> bytes:
    seen = b""
    async with asyncio.timeout(timeout):
        while needle not in seen:
            message = await ws.receive()
            assert message.type == aiohttp.WSMsgType.BINARY, message
            seen += message.data
    return seen


async def test_a_session_beyond_the_cap_is_refused_and_stopping_leaves_no_process(one_seat):
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        first = await http.ws_connect(one_seat.websocket + "?width=120&height=36", headers={"Origin": one_seat.base})
        await read_screen(first, b"_fused")  # the app runs, through the same CLI (a long name is cut in its middle)
        assert len(one_seat.children()) == 1
        second = await http.ws_connect(one_seat.websocket, headers={"Origin": one_seat.base})
        message = await second.receive(timeout=PATIENCE)
        assert message.type == aiohttp.WSMsgType.CLOSE
        assert message.data == aiohttp.WSCloseCode.TRY_AGAIN_LATER
        assert "All 1 sessions are in use" in message.extra
        async with http.get(one_seat.url) as response:
            assert response.status == 503
            assert "sessions are in use" in await response.text()
        started = one_seat.descendants()
        one_seat.stop()  # with the session still open
        async with asyncio.timeout(PATIENCE):
            while (message := await first.receive()).type == aiohttp.WSMsgType.BINARY:
                pass  # the screen's last frames, then the close
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert message.extra == "ptotui serve stopped"
    assert one_seat.process.returncode == 0
    assert started and not alive(started)


async def test_public_url_sets_the_websocket_address_and_the_only_origin(tmp_path):
    served = start_serve("sample_reports", "--public-url", "http://localhost:9/", "--state", str(tmp_path / "t.json"))
    try:
        assert served.url.startswith("http://localhost:9/?token=")
        direct = f"http://127.0.0.1:{served.port}"
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            async with http.get(direct + "/?token=" + served.token) as response:
                page = await response.text()
            assert f'data-session-websocket-url="ws://localhost:9/ws/{served.token}"' in page
            for origin in (direct, "http://localhost:8080"):
                with pytest.raises(aiohttp.WSServerHandshakeError):
                    await http.ws_connect(f"ws://127.0.0.1:{served.port}/ws/{served.token}", headers={"Origin": origin})
    finally:
        served.stop()


@pytest.mark.slow
async def test_an_app_that_ignores_quit_and_sigterm_is_killed_with_what_it_started(tmp_path):
    from textual_serve.download_manager import DownloadManager

    from ptotui.commands.serve import Session

    async def ignore(*_: object) -> None:
        return None

    pids = tmp_path / "pids"
    # Ignores the quit request and SIGTERM (the disposition is inherited by its child, too).
    command = f"exec sh -c 'trap \"\" TERM; sleep 300 & echo $$ $! > {shlex.quote(str(pids))}; wait'"
    session = Session(command, write_bytes=ignore, write_str=ignore, close=ignore, download_manager=DownloadManager())
    await session.start(80, 24)
    async with asyncio.timeout(PATIENCE):
        while not pids.exists() or len(pids.read_text().split()) < 2:
            await asyncio.sleep(0.05)
    started = [int(pid) for pid in pids.read_text().split()]
    try:
        async with asyncio.timeout(PATIENCE):
            await session.stop()
        assert not alive(started)
    finally:
        for pid in alive(started):  # only when the test fails: leave nothing behind
            os.kill(pid, signal.SIGKILL)


def test_a_bad_compare_stops_serve_before_it_listens(capsys, tmp_path):
    # --port 70000 would be refused next: without the --compare check the test fails, never hangs.
    assert main(["serve", "sample_reports", "--compare", str(tmp_path / "nowhere"), "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ptotui: error: --compare")


async def test_a_token_with_url_characters_is_encoded_in_the_address_and_the_websocket(tmp_path):
    """Issue 24: a token with ``# / & %`` printed an address that never worked (``#`` starts the
    fragment) and put a raw ``/`` in the page's websocket URL (404)."""
    import html
    import re
    from urllib.parse import quote

    import yarl

    token = "a#b/c&d%e?f+g=h" + "x" * 16
    (tmp_path / "token").write_text(token + "\n")
    served = start_serve("sample_reports", "--token-file", str(tmp_path / "token"), "--state", str(tmp_path / "t.json"))
    try:
        assert served.url.endswith("?token=" + quote(token, safe=""))
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            async with http.get(yarl.URL(served.url, encoded=True)) as response:
                assert response.status == 200
                page = await response.text()
            websocket_url = html.unescape(re.search(r'data-session-websocket-url="([^"]+)"', page).group(1))
            assert websocket_url.endswith("/ws/" + quote(token, safe=""))
            ws = await http.ws_connect(
                yarl.URL(websocket_url + "?width=100&height=30", encoded=True), headers={"Origin": served.base}
            )
            await read_screen(ws, b"_fused")  # the token was accepted: the app runs (a long name is cut in its middle)
            await ws.close()
    finally:
        served.stop()


async def test_sessions_opened_together_each_log_the_count_when_they_started(monkeypatch):
    """Issue 24: four sessions opened together each logged "session N started (4 of 4)"."""
    import logging

    from aiohttp.test_utils import TestClient, TestServer

    from ptotui.commands import serve

    all_waiting = asyncio.Event()
    pids = iter(range(101, 200))

    class FakeSession:  # what the server asks of a session, without starting an app
        waiting = 0

        def __init__(self, *args: object, **kwargs: object) -> None:
            self.pid = next(pids)

        async def start(self, width: int, height: int) -> None:
            FakeSession.waiting += 1
            if FakeSession.waiting == 4:  # every one is counted in the server before any has started
                all_waiting.set()
            await all_waiting.wait()

        async def stop(self) -> None:
            pass

    started: list[str] = []
    four_started = asyncio.Event()

    class Lines(logging.Handler):  # called on the server's loop, which is this test's
        def emit(self, record: logging.LogRecord) -> None:
            if "started" in record.getMessage():
                started.append(record.getMessage())
                if len(started) == 4:
                    four_started.set()

    monkeypatch.setattr(serve, "Session", FakeSession)
    server = serve.PtoServer("true", token="t" * 20, max_sessions=4)
    handler = Lines()
    serve.log.addHandler(handler)
    monkeypatch.setattr(serve.log, "level", logging.INFO)
    async with TestClient(TestServer(await server._make_app())) as client:
        origin = str(client.make_url("")).rstrip("/")
        server.origins = frozenset({origin})
        sockets = await asyncio.gather(
            *(client.ws_connect("/ws/" + server.token, headers={"Origin": origin}) for _ in range(4))
        )
        try:
            async with asyncio.timeout(PATIENCE):
                await four_started.wait()
        finally:
            serve.log.removeHandler(handler)
        for ws in sockets:
            await ws.close()
    assert [line.split("(")[1] for line in started] == ["1 of 4)", "2 of 4)", "3 of 4)", "4 of 4)"], started


# -- issue 40: what one socket may cost the host ------------------------------------------


class _RecordingSession:
    """What the server asks of a session, recorded, without starting an app."""

    made: list[_RecordingSession] = []

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.pid = 1000 + len(self.made)
        self.sizes: list[tuple[int, int]] = []
        self.resized = asyncio.Event()
        self.release = asyncio.Event()  # stop() waits for it: an app slow to go
        self.stopping = asyncio.Event()
        self.made.append(self)

    async def start(self, width: int, height: int) -> None:
        self.sizes.append((width, height))

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.sizes.append((width, height))
        self.resized.set()

    async def stop(self) -> None:
        self.stopping.set()
        await self.release.wait()

    async def gone(self) -> None:
        pass


async def _client(monkeypatch, **server_options: object):
    from aiohttp.test_utils import TestClient, TestServer

    from ptotui.commands import serve

    _RecordingSession.made = []
    monkeypatch.setattr(serve, "Session", _RecordingSession)
    server = serve.PtoServer("true", token="t" * 20, **server_options)  # type: ignore[arg-type]
    client = TestClient(TestServer(await server._make_app(), host="127.0.0.1"))
    await client.start_server()
    origin = str(client.make_url("")).rstrip("/")
    server.origins = frozenset({origin})
    return server, client, origin


async def test_every_resize_is_held_to_the_connect_limit(monkeypatch):
    """Issue 40: ``["resize", {"width": 20000, "height": 20000}]`` reached the app as it was (5.4 GB)."""
    server, client, origin = await _client(monkeypatch)
    try:
        ws = await client.ws_connect(f"/ws/{server.token}?width=30000&height=2", headers={"Origin": origin})
        session = _RecordingSession.made[0]
        await ws.send_json(["resize", {"width": 20000, "height": 20000}])
        async with asyncio.timeout(PATIENCE):
            await session.resized.wait()
        session.release.set()
        await ws.close()
    finally:
        await client.close()
    assert session.sizes == [(1000, 5), (1000, 500)]


async def test_a_slot_is_freed_when_the_app_is_gone_not_when_its_tab_is(monkeypatch):
    """Issue 40: the tab's slot was freed before its app stopped: 5 apps ran with a cap of 4."""
    server, client, origin = await _client(monkeypatch, max_sessions=1)
    try:
        first = await client.ws_connect(f"/ws/{server.token}", headers={"Origin": origin})
        await first.close()
        stopping = _RecordingSession.made[0]
        async with asyncio.timeout(PATIENCE):
            await stopping.stopping.wait()  # its app is asked to go and has not yet
        second = await client.ws_connect(f"/ws/{server.token}", headers={"Origin": origin})
        message = await second.receive(timeout=PATIENCE)
        assert message.type == aiohttp.WSMsgType.CLOSE and message.data == aiohttp.WSCloseCode.TRY_AGAIN_LATER
        assert len(_RecordingSession.made) == 1
        stopping.release.set()
    finally:
        await client.close()


async def test_a_connection_that_sends_no_request_is_closed(monkeypatch):
    """Issue 40: 300 sockets that never sent the token held a descriptor each for an hour."""
    from aiohttp import web

    from ptotui.commands import serve

    server = serve.PtoServer("true", token="t" * 20)
    server.idle_timeout = 0.5
    runner = await server.make_runner()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
        async with asyncio.timeout(PATIENCE):
            assert await reader.read() == b""  # closed by the server
        writer.close()
    finally:
        await runner.cleanup()


async def test_stopping_a_session_whose_tab_is_gone_still_ends_its_app():
    """Issue 40: the tab's socket gone, the app's output reader raised ConnectionError, and
    Session.stop raised it before its SIGTERM/SIGKILL: the app outlived its tab."""
    from textual_serve.download_manager import DownloadManager

    from ptotui.commands.serve import Session

    async def gone_socket(_: object) -> None:
        raise ConnectionAbortedError("the tab is gone")

    async def ignore(*_: object) -> None:
        return None

    # Says it is a Textual app, sends one frame, then ignores the quit request (and stdin's end).
    child = (
        "import sys, time; out = sys.stdout.buffer; out.write(b'__GANGLION__\\n');"
        "out.write(b'D' + (3).to_bytes(4, 'big') + b'abc'); out.flush(); time.sleep(300)"
    )
    command = "exec " + shlex.join([sys.executable, "-c", child])
    session = Session(
        command, write_bytes=gone_socket, write_str=ignore, close=ignore, download_manager=DownloadManager()
    )
    await session.start(80, 24)
    pid = session.pid
    assert pid is not None
    try:
        async with asyncio.timeout(PATIENCE):
            await session.stop()
            await session.gone()
        assert not alive([pid])
    finally:
        for still in alive([pid]):  # only when the test fails: leave nothing behind
            os.kill(still, signal.SIGKILL)
