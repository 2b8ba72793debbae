"""``ptotui serve``: the dashboard in a browser, one app process per tab, over textual-serve.

textual-serve has no authentication and no Origin check (any page the user visits could open
its websocket, read the screen and send keys), spawns a process for every connection, and its
page loads web fonts from a CDN. This subclass keeps its process protocol and its browser
client, and adds what a shared bench host needs: a token on the page and the websocket, an
Origin check, a cap on sessions, a page that fetches nothing from outside, and a shutdown that
is bounded in time and leaves no child behind.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import ipaddress
import logging
import os
import secrets
import shlex
import signal
import socket
import sys
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from ptotui.commands.common import UsageError, not_a_file, thresholds_of
from ptotui.model.i18n import _
from ptotui.model.options import DASHBOARD, DashboardOptions

PAGE = Path(__file__).with_name("serve_page")
TOKEN_MIN_CHARS = 16
# Seconds a session's app gets to quit after being asked, then after SIGTERM, before SIGKILL.
QUIT_GRACE = 1.5
# Seconds a connection may stay open without a request (or between requests): a socket that never
# sends one, or never finishes its headers, is closed then instead of holding a descriptor for an hour.
IDLE_TIMEOUT = 10.0
# The largest terminal a tab may ask for, at connect and on every resize: a screen of 20000x20000
# cells grew an app to 5.4 GB.
MAX_WIDTH, MAX_HEIGHT = 1000, 500
log = logging.getLogger("ptotui.commands.serve")


# -- settings -------------------------------------------------------------------------


def make_token() -> str:
    return secrets.token_urlsafe(24)


def read_token_file(path: Path) -> str:
    """The token in ``path``; a missing file is created with a new token, readable by its owner only,
    so the URL stays the same from one start to the next."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = make_token()
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
        return token
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(_("--token-file {path}: {error}").format(path=path, error=exc)) from exc
    if len(token) < TOKEN_MIN_CHARS or not token.isascii() or not token.isprintable() or " " in token:
        raise UsageError(
            _("--token-file {path}: the token must be at least {least} printable ASCII characters").format(
                path=path, least=TOKEN_MIN_CHARS
            )
        )
    return token


def token_matches(given: str, token: str) -> bool:
    """In constant time, so the response time tells nothing about how much of a guess was right."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` as a browser writes it in an ``Origin`` header (default ports dropped)."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    return f"{parts.scheme}://{host}" + ("" if port is None or port == default else f":{port}")


def check_public_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise UsageError(
            _("--public-url {url}: give the http(s) address people open, e.g. http://localhost:9000").format(url=url)
        )
    return url.rstrip("/")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_url_for(host: str, port: int) -> str:
    """The address to print when --public-url is not given."""
    if host in ("", "0.0.0.0", "::"):  # noqa: S104 - comparing, not binding
        host = socket.gethostname()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def served_origins(public_url: str, host: str, port: int, explicit: bool) -> frozenset[str]:
    """The Origins a websocket may come from: the public URL's; on loopback without --public-url,
    also the other names of this machine's loopback on the same port (the printed URL says
    127.0.0.1, a person may type localhost)."""
    origins = {origin_of(public_url)}
    if not explicit and is_loopback(host):
        origins |= {f"http://127.0.0.1:{port}", f"http://localhost:{port}"}
    return frozenset(origins)


def terminal_size(width: object, height: object) -> tuple[int, int]:
    """The size a tab asked for, in cells, held to 10..MAX_WIDTH x 5..MAX_HEIGHT. Anything but a
    number (or a string of one, as in the connect URL) is a ValueError: not textual-serve's protocol."""

    def number(value: object, least: int, most: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError(f"a terminal size of {type(value).__name__}")
        cells = float(value)
        if cells != cells:  # NaN
            raise ValueError("a terminal size of NaN")
        return int(max(least, min(cells, most)))

    return number(width, 10, MAX_WIDTH), number(height, 5, MAX_HEIGHT)


def app_command(options: DashboardOptions) -> str:
    """The command each session runs: ``ptotui PATH`` with the dashboard flags that were given,
    through the same CLI and factory as in a terminal. Every word is quoted (textual-serve runs
    it with a shell); ``exec`` makes the app the shell's own process, so the server signals the
    app itself."""
    return "exec " + shlex.join([sys.executable, "-m", "ptotui", *options.absolute().to_argv()])


# -- one browser tab: one app process -------------------------------------------------


class Session(AppService):
    """textual-serve's app process, in a session of its own and stopped within a bounded time."""

    _stopped: asyncio.Future[None] | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        # As textual-serve's, plus a new session: Ctrl+C at the server's terminal reaches the
        # server only, which then asks every app to quit in order.
        self._process = process = await asyncio.create_subprocess_shell(  # noqa: S604 - every word shlex-quoted
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
        )
        assert process.stdin is not None  # noqa: S101 - asked for with PIPE just above
        self._stdin = process.stdin
        return process

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def stop(self) -> None:
        """Stop the app once, however many callers ask (the tab's handler and the shutdown)."""
        if self._stopped is None:
            self._stopped = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopped)

    async def _stop(self) -> None:
        """Ask the app to quit; SIGTERM, then SIGKILL to its process group, each after QUIT_GRACE
        seconds without an exit. Nothing raised on the way (the tab's socket gone under the reader
        of the app's output) stops it before the process is gone."""
        try:
            await asyncio.wait_for(super().stop(), QUIT_GRACE)
        except TimeoutError:
            pass
        except Exception as exc:  # whatever it was, the process must still go
            log.debug("session %s: asking the app to quit failed (%r); signalling it", self.pid, exc)
        process = self._process
        if process is None:
            return
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and process.returncode is None:  # not reaped: its group id is still its own
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, sig)  # the app and what it started (git cat-file)
            with suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), QUIT_GRACE)
                break
        if self._task is not None:  # its reader ends at the pipe's end, now the process is gone
            self._task.cancel()
            self._task = None

    async def gone(self) -> None:
        """Until its process has exited and been reaped (at once when it never started)."""
        if self._process is not None:
            await self._process.wait()


# -- the server ---------------------------------------------------------------------


class PtoServer(Server):
    """textual-serve's Server with a token, an Origin check, a session cap and local assets only."""

    def __init__(
        self,
        command: str,
        *,
        token: str,
        host: str = "127.0.0.1",
        port: int = 8080,
        public_url: str | None = None,
        max_sessions: int = 4,
    ) -> None:
        super().__init__(command, host=host, port=port, title="ptotui", templates_path=PAGE)
        self.token = token
        self.max_sessions = max_sessions
        self.description = ""  # shown on the page while the app starts
        self.explicit_public_url = public_url
        self.origins: frozenset[str] = frozenset()
        self.sessions: dict[Session, web.WebSocketResponse] = {}
        self.running: set[Session] = set()  # those whose app has started and not yet ended
        self.endings: set[asyncio.Future[None]] = set()  # sessions being stopped
        self.stopping = False
        self.idle_timeout = IDLE_TIMEOUT
        self.bind(port)

    def bind(self, port: int) -> None:
        """Set the public URL and the accepted Origins once the port is known (``--port 0``)."""
        self.port = port
        self.public_url = self.explicit_public_url or public_url_for(self.host, port)
        self.origins = served_origins(self.public_url, self.host, port, self.explicit_public_url is not None)

    @property
    def url(self) -> str:
        """What to open: the page, with its token (percent-encoded: a token file's ``#``
        would start the fragment, its ``&`` or ``%`` change the query)."""
        return f"{self.public_url}/?token={quote(self.token, safe='')}"

    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.page, name="index"),
                web.get("/ws/{token}", self.websocket, name="websocket"),
                web.static("/static", self.statics_path, name="static"),  # textual-serve's js, css, fonts
                web.static("/assets", PAGE / "assets", name="assets"),  # ours
            ]
        )
        app.on_response_prepare.append(self._secure_headers)
        return app

    async def _secure_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        """Every response: the page may load nothing but this server's files and websocket,
        may not be framed by another site, and sends no Referer (the URL carries the token)."""
        sockets = " ".join(sorted("ws" + origin[4:] for origin in self.origins))
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; "
            f"img-src 'self' data:; connect-src 'self' {sockets}; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'none'"
        )  # 'unsafe-inline' styles: xterm.js sizes its canvas through <style> elements
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        if not request.path.startswith(("/static/", "/assets/")):
            response.headers["Cache-Control"] = "no-store"

    @staticmethod
    def _refusal(request: web.Request, status: int, title: str, text: str) -> web.Response:
        return aiohttp_jinja2.render_template("refused.html", request, {"title": title, "text": text}, status=status)

    async def page(self, request: web.Request) -> web.StreamResponse:
        if not token_matches(request.query.get("token", ""), self.token):
            return self._refusal(
                request,
                403,
                "This dashboard needs its token",
                "Open the full address that `ptotui serve` printed when it started: it ends in ?token=…",
            )
        if self.stopping or len(self.sessions) >= self.max_sessions:
            return self._refusal(request, 503, *self._full_text())
        return aiohttp_jinja2.render_template("index.html", request, self._page_context(request))

    def _full_text(self) -> tuple[str, str]:
        return (
            f"All {self.max_sessions} sessions are in use",
            f"This ptotui serves at most {self.max_sessions} browser tabs at once, and that many are open. "
            "Close one of them and reload this page, or ask whoever runs `ptotui serve` to raise --max-sessions.",
        )

    def _page_context(self, request: web.Request) -> dict[str, Any]:
        # Encoded whole: aiohttp's url_for leaves a "/" in the token raw, and /ws/a/b matches no route.
        websocket_path = "/ws/" + quote(self.token, safe="")
        scheme, rest = self.public_url.split(":", 1)
        return {
            "font_size": max(8, min(to_int(request.query.get("fontsize", "16"), 16), 40)),
            "websocket_url": ("wss:" if scheme == "https" else "ws:") + rest + websocket_path,
            # Relative: the same origin as the page, whichever name it was opened by (CSP 'self').
            "static": "static/",
            "assets": "assets/",
            "title": "ptotui",
            "description": self.description,
        }

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if not token_matches(request.match_info["token"], self.token):
            raise web.HTTPForbidden(text="ptotui serve: wrong or missing token\n")
        if request.headers.get("Origin") not in self.origins:
            # A page on another site (or one rebinding its DNS name to this machine) may not drive it.
            raise web.HTTPForbidden(text="ptotui serve: this websocket is only for the page this server serves\n")
        websocket = web.WebSocketResponse(heartbeat=15, timeout=QUIT_GRACE)
        if self.stopping or len(self.sessions) >= self.max_sessions:
            await websocket.prepare(request)
            reason = "ptotui serve is stopping" if self.stopping else self._full_text()[0]
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=reason.encode())
            return websocket

        async def close() -> None:  # the app quit (q): the page shows its "Session ended"
            await websocket.close()

        session = Session(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
        )
        self.sessions[session] = websocket  # counted before the first await: no race past the cap
        try:
            await websocket.prepare(request)
            width, height = terminal_size(
                to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
            )
            await session.start(width, height)
            # Counted and logged with no await between: on the event loop nothing else runs in
            # between, so each line says how many ran at that moment (1 of 4, 2 of 4, ... for
            # tabs opened together), not how many had been let in (4 of 4 each time).
            self.running.add(session)
            log.info("session %s started (%d of %d)", session.pid, len(self.running), self.max_sessions)
            await self._process_messages(websocket, session)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, AssertionError) as exc:
            log.warning("a browser sent a message that is not textual-serve's protocol (%s): session closed", exc)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            # In a task of its own: when the handler is cancelled (its connection lost), the app
            # is still stopped, and its slot still held until then.
            ending = asyncio.ensure_future(self._end(session, websocket))
            self.endings.add(ending)
            ending.add_done_callback(self.endings.discard)
            await asyncio.shield(ending)
        return websocket

    async def _end(self, session: Session, websocket: web.WebSocketResponse) -> None:
        """Stop the session's app; its slot is freed when the process is gone, not when its tab is:
        the cap counts the apps that run (an app slow to stop beside a new tab's would pass it)."""
        try:
            await session.stop()
            await session.gone()
        finally:
            del self.sessions[session]
            self.running.discard(session)
        if not websocket.closed:
            with suppress(ConnectionError):
                await websocket.close()
        log.info("session %s ended", session.pid)

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """textual-serve's, with every resize held to the size a tab may connect with."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            envelope = message.json()
            if not isinstance(envelope, list) or not envelope:
                raise ValueError("a message that is not a non-empty list")
            kind = envelope[0]
            if kind == "stdin":
                data = envelope[1]
                if not isinstance(data, str):
                    raise TypeError("stdin that is not a string")
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize":
                data = envelope[1]
                await app_service.set_terminal_size(*terminal_size(data["width"], data["height"]))
            elif kind == "ping":
                await websocket.send_json(["pong", envelope[1]])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def close_sessions(self) -> None:
        """Tell every browser the server is going, and stop every app (bounded: see Session.stop)."""
        self.stopping = True
        sessions = list(self.sessions.items())
        await asyncio.gather(
            *(ws.close(code=WSCloseCode.GOING_AWAY, message=b"ptotui serve stopped") for _, ws in sessions),
            return_exceptions=True,
        )
        await asyncio.gather(*(session.stop() for session, _ in sessions), return_exceptions=True)

    async def make_runner(self) -> web.AppRunner:
        """The app's runner, set up: a connection idle for IDLE_TIMEOUT seconds before (or between)
        its requests is closed; an open tab's websocket is a request being handled, never idle."""
        runner = web.AppRunner(
            await self._make_app(), access_log=None, shutdown_timeout=QUIT_GRACE, keepalive_timeout=self.idle_timeout
        )
        await runner.setup()
        return runner

    async def run(self, on_ready: Any = None) -> None:
        """Serve until SIGINT or SIGTERM, then close every session and stop."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        runner = await self.make_runner()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            try:
                await site.start()
            except OSError as exc:
                raise UsageError(
                    _("cannot listen on {host}:{port}: {error}").format(
                        host=self.host, port=self.port, error=exc.strerror or exc
                    )
                ) from exc
            self.bind(runner.addresses[0][1])
            if on_ready is not None:
                on_ready(self)
            await stop.wait()
            await self.close_sessions()
        finally:
            await runner.cleanup()


# -- the command ---------------------------------------------------------------------


def describe(args: argparse.Namespace, server: PtoServer) -> str:
    mode = "read-only" if args.read_only else "triage keys on (the triage file is shared by every tab)"
    if getattr(args, "allow_runs", False) and not args.read_only:
        mode += ", re-runs on (R starts the runner on this host)"
    return f"{args.path or 'the default reports'}, {mode}, at most {server.max_sessions} tabs"


def announce(server: PtoServer, args: argparse.Namespace) -> None:
    port = urlsplit(server.public_url).port or server.port
    lines = [
        f"ptotui serve: {describe(args, server)}",
        f"Listening on {server.host}:{server.port}",
        f"Open: {server.url}",
    ]
    if server.explicit_public_url is None and is_loopback(server.host):
        lines.append(
            f"From a laptop: ssh -L {port}:127.0.0.1:{server.port} {socket.gethostname()}, then open the same address"
            f" (another local port P: add --public-url http://localhost:P)."
        )
    lines.append("Anyone with this address can use the dashboard. Ctrl+C stops it.")
    print("\n".join(lines), flush=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("as for ptotui PATH"))
    parser.add_argument("--host", default="127.0.0.1", help=_("address to listen on (default 127.0.0.1: this machine)"))
    parser.add_argument("--port", type=int, default=8080, help=_("port (default 8080; 0 picks a free one)"))
    parser.add_argument("--public-url", metavar="URL", help=_("the address people open, behind ssh -L or a proxy"))
    parser.add_argument("--max-sessions", type=int, default=4, metavar="N", help=_("browser tabs at once (default 4)"))
    parser.add_argument("--token-file", metavar="F", help=_("read the token from F (created when missing)"))
    # The dashboard's flags, passed on to every tab, but for --on-regression: each tab would run it.
    DashboardOptions.add_arguments(
        parser, [n for n in DASHBOARD if n not in ("on_regression", "runs", "publish", "publish_host")]
    )
    parser.add_argument(
        "--allow-runs",
        action="store_true",
        help=_("let every tab start the kernels' runner on this host with R (docs/rerun.md)"),
    )


def tab_options(args: argparse.Namespace) -> DashboardOptions:
    """What every tab's app is started with. A tab starts runners (``R``) only when the server
    was told it may (``--allow-runs``): anyone with the address could otherwise run the tree's
    code on this host, queue after queue."""
    options = DashboardOptions.from_args(args)
    return replace(options, runs=bool(args.allow_runs) and not options.read_only)


def run(args: argparse.Namespace) -> int:
    options = tab_options(args)
    not_a_file(options.path)  # a missing PATH is fine, as for ptotui PATH: the apps wait for it
    thresholds_of(args)  # a --mid above --high: one line and exit 2 here, not a failed start in every tab
    if options.compare:  # the same for a bad --compare
        from ptotui.commands.dashboard import compare_sources

        compare_sources(options.compare, options.path)
    if not 1 <= args.max_sessions <= 64:
        raise UsageError(_("--max-sessions must be between 1 and 64"))
    if not 0 <= args.port <= 65535:
        raise UsageError(_("--port must be between 0 and 65535"))
    public_url = check_public_url(args.public_url) if args.public_url else None
    token = read_token_file(Path(args.token_file).expanduser()) if args.token_file else make_token()
    logging.basicConfig(level=logging.INFO, format="ptotui serve: %(message)s", stream=sys.stdout)
    logging.getLogger("aiohttp").setLevel(logging.WARNING)
    server = PtoServer(
        app_command(options),
        token=token,
        host=args.host,
        port=args.port,
        public_url=public_url,
        max_sessions=args.max_sessions,
    )
    server.description = describe(args, server)
    asyncio.run(server.run(lambda s: announce(s, args)))
    return 0
