"""The FastAPI application: REST, WebSocket, the monitor and overlay pages.

``create_app(settings)`` builds an app whose lifespan owns every resource: the event log (opened,
replayed through the referee, closed), the pub/sub hub, and any background tasks given to it (the
``--replay`` player of ``gammonwatch serve``, later the live camera pipeline).

Reading is public (pages, state, alerts, transcripts, the WebSocket); everything that changes
something needs the monitor token, sent as ``Authorization: Bearer TOKEN`` (or
``X-Gammonwatch-Token: TOKEN``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, HTTPException, Query, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage
from starlette.websockets import WebSocketDisconnect

from rules.referee.tablestate import TableStateError
from server.engine import EngineError, EngineFactory
from server.hub import HISTORY_KINDS, LAGGED_CLOSE_CODE, Hub, Message
from server.live import Conflict, Live, NotFound
from server.models import (
    MAX_STATE_BYTES,
    AlertDecision,
    Announce,
    CorrectCube,
    CorrectScore,
    MatchCreate,
    SetPosition,
    TableCreate,
    Undo,
)
from server.storage import EventLog

log = logging.getLogger("gammonwatch.server")

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY_BYTES = 256 * 1024
MAX_DELAY_S = 600.0
WS_KINDS = frozenset({"view", "alert", "alert_status", "table", "frame", "pipeline"})

IdParam = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{1,32}$", max_length=32)]
AlertIdParam = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{1,48}$", max_length=48)]

BackgroundTask = Callable[[Live], Coroutine[Any, Any, None]]


@dataclass
class Settings:
    """Server settings; :meth:`from_env` reads ``GAMMONWATCH_DB`` and ``GAMMONWATCH_TOKEN``."""

    db: str = "gammonwatch.db"
    """SQLite path (or ``sqlite:///path``), or a ``postgresql://`` URL."""
    token: str = ""
    """Monitor token; generated when empty (``token_generated`` is then True)."""
    rules: str = "usbgf-2019"
    """Default rule set for new matches (the match body can choose another)."""
    queue_size: int = 512
    """Messages a WebSocket client may fall behind before it is disconnected (it then resyncs)."""
    token_generated: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if not self.token:
            self.token = secrets.token_urlsafe(18)
            self.token_generated = True

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        values: dict[str, Any] = {}
        if os.environ.get("GAMMONWATCH_DB"):
            values["db"] = os.environ["GAMMONWATCH_DB"]
        if os.environ.get("GAMMONWATCH_TOKEN"):
            values["token"] = os.environ["GAMMONWATCH_TOKEN"]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


class BodySizeLimit:
    """ASGI middleware: refuse request bodies larger than ``limit`` bytes with 413, even when chunked."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await _too_large(send, self.limit)
                return
        seen = 0

        async def limited() -> AsgiMessage:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _BodyTooLarge:
            await _too_large(send, self.limit)


class _BodyTooLarge(Exception):
    pass


class TokenGate:
    """ASGI middleware: a request that changes something (POST/PUT/PATCH/DELETE under ``/api/``) without
    the monitor token is refused with 401 before its body is even read or validated. The
    :func:`require_token` dependency on the same routes documents the scheme in the OpenAPI spec."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH", "DELETE") and scope["path"].startswith("/api/"):
            given = b""
            for name, value in scope.get("headers", []):
                if name == b"authorization" and value[:7].lower() == b"bearer ":
                    given = value[7:].strip()
                elif name == b"x-gammonwatch-token" and not given:
                    given = value.strip()
            if not given or not secrets.compare_digest(given, self.token):
                body = json.dumps({"detail": UNAUTHORISED}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


async def _too_large(send: Send, limit: int) -> None:
    body = f'{{"detail":"request body larger than {limit} bytes"}}'.encode()
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


UNAUTHORISED = "monitor token missing or wrong: send 'Authorization: Bearer TOKEN' (the token is printed at server start)"
_bearer = HTTPBearer(auto_error=False, description="the monitor token (GAMMONWATCH_TOKEN or printed at start)")
_header = APIKeyHeader(name="X-Gammonwatch-Token", auto_error=False)


def require_token(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> None:
    """Dependency of every route that changes something."""
    expected: str = request.app.state.settings.token
    given = bearer.credentials if bearer is not None else header
    if not given or not secrets.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(
            status_code=401,
            detail=UNAUTHORISED,
            headers={"WWW-Authenticate": "Bearer"},
        )


Auth = Depends(require_token)


def create_app(
    settings: Settings | None = None,
    background: list[BackgroundTask] | None = None,
    engine_factory: EngineFactory | None = None,
) -> FastAPI:
    """The gammonwatch web app; resources live exactly as long as its lifespan.

    ``background``: coroutines ``job(live)`` run as tasks for the app's lifetime (e.g. a table-state
    source). ``engine_factory``: the referee of each match (default :class:`server.engine.RefereeEngine`).
    """
    settings = settings or Settings.from_env()
    if engine_factory is None:
        from server.engine import RefereeEngine

        engine_factory = RefereeEngine
    factory: EngineFactory = engine_factory

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        event_log = EventLog.open(settings.db)
        hub = Hub(queue_size=settings.queue_size, history_seconds=MAX_DELAY_S + 5)
        live = Live(event_log, hub, factory)
        started = time.perf_counter()
        n = live.restore()
        log.info("event log %s: %d events replayed in %.2f s", event_log.description, n, time.perf_counter() - started)
        for table_id in live.tables:  # base of the delayed (broadcast) feeds
            hub.publish(table_id, "view", {"view": live.view(table_id)})
        app.state.live = live
        app.state.hub = hub
        tasks = [asyncio.create_task(job(live)) for job in (background or [])]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            event_log.close()

    app = FastAPI(
        title="gammonwatch",
        version="1",
        summary="Over-the-board backgammon monitor: live table state, referee alerts, overlay and transcripts.",
        lifespan=lifespan,
        docs_url=None,  # served below from the packaged Swagger UI: no CDN, nothing fetched at run time
        redoc_url=None,
    )
    app.state.settings = settings
    app.add_middleware(BodySizeLimit)
    app.add_middleware(TokenGate, token=settings.token)  # added last: runs first
    _add_error_handlers(app)
    _add_routes(app)
    _add_api_docs(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _add_api_docs(app: FastAPI) -> None:
    """The OpenAPI page at /docs, with Swagger UI's files from the `swagger-ui-bundle` package."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from swagger_ui_bundle import swagger_ui_path

    app.mount("/static/swagger", StaticFiles(directory=str(swagger_ui_path)), name="swagger")

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="gammonwatch API",
            swagger_js_url="/static/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/swagger/swagger-ui.css",
            swagger_favicon_url="/static/swagger/favicon-32x32.png",
        )


def _live(request: Request) -> Live:
    live: Live = request.app.state.live
    return live


LiveDep = Annotated[Live, Depends(_live)]


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(NotFound)
    async def not_found(_: Request, exc: NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(Conflict)
    async def conflict(_: Request, exc: Conflict) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(TableStateError)
    async def bad_state(_: Request, exc: TableStateError) -> JSONResponse:
        return JSONResponse({"detail": {"field": exc.field, "reason": exc.reason}}, status_code=422)

    @app.exception_handler(EngineError)
    async def engine_error(_: Request, exc: EngineError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
            for e in exc.errors()
        ]
        return JSONResponse({"detail": errors}, status_code=422)


def _add_routes(app: FastAPI) -> None:
    # ---------------------------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    async def index() -> RedirectResponse:
        return RedirectResponse("/monitor")

    @app.get("/monitor", include_in_schema=False)
    async def monitor_page() -> FileResponse:
        return FileResponse(STATIC / "monitor.html", media_type="text/html")

    @app.get("/overlay", include_in_schema=False)
    async def overlay_page() -> FileResponse:
        return FileResponse(STATIC / "overlay.html", media_type="text/html")

    # ---------------------------------------------------------------------------------- health
    @app.get("/api/health", tags=["server"])
    async def health(live: LiveDep) -> dict[str, Any]:
        """Liveness, the storage in use and how many events were replayed at start."""
        return {
            "ok": True,
            "storage": live.log.description,
            "events_replayed": live.restored_events,
            "replay_errors": live.replay_errors[:20],
            "tables": len(live.tables),
            "subscribers": live.hub.subscriber_count(),
        }

    @app.get("/api/auth", tags=["server"], status_code=204, dependencies=[Auth])
    async def check_token() -> Response:
        """204 when the token is right, 401 otherwise (the monitor page checks the token it was given)."""
        return Response(status_code=204)

    # ---------------------------------------------------------------------------------- tables
    @app.get("/api/tables", tags=["tables"])
    async def list_tables(live: LiveDep) -> list[dict[str, Any]]:
        return [t.info() for t in live.tables.values()]

    @app.post("/api/tables", tags=["tables"], status_code=201, dependencies=[Auth])
    async def create_table(body: TableCreate, live: LiveDep) -> dict[str, Any]:
        return live.create_table(body).info()

    @app.get("/api/tables/{table_id}", tags=["tables"])
    async def get_table(table_id: IdParam, live: LiveDep) -> dict[str, Any]:
        return live.table(table_id).info()

    @app.get("/api/tables/{table_id}/view", tags=["tables"])
    async def get_view(table_id: IdParam, live: LiveDep) -> dict[str, Any]:
        """The current view: the table as seen (last table state) and the match as the referee follows it."""
        return live.view(table_id)

    @app.post("/api/tables/{table_id}/states", tags=["tables"], dependencies=[Auth])
    async def post_state(
        table_id: IdParam,
        live: LiveDep,
        request: Request,
        state: Annotated[dict[str, Any], Body(description="one table state (schemas/table_state.schema.json)")],
    ) -> dict[str, Any]:
        """Feed one table state to the table's referee; returns the alerts it raised."""
        size = len(await request.body())
        if size > MAX_STATE_BYTES:
            raise HTTPException(413, f"table state of {size} bytes; at most {MAX_STATE_BYTES} are accepted")
        alerts = live.ingest(table_id, state)
        match = live.table(table_id).match
        return {"alerts": alerts, "states": match.states if match else 0}

    @app.get("/api/tables/{table_id}/frame.jpg", tags=["tables"], responses={200: {"content": {"image/jpeg": {}}}})
    async def get_frame(table_id: IdParam, live: LiveDep) -> Response:
        """The latest camera frame; 404 when the table is fed by a recorded stream (no camera)."""
        t = live.table(table_id)
        if t.frame is None:
            raise NotFound(f"table {table_id!r} has no camera frame (its states come from a recorded stream)")
        return Response(t.frame.jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/tables/{table_id}/pipeline", tags=["tables"])
    async def get_pipeline(table_id: IdParam, live: LiveDep) -> dict[str, Any]:
        """The live pipeline of the table (``serve --source``, ``demo``): source state (running,
        reconnecting, ended, error), frames read, processed and dropped, recognitions, and per-stage
        timings in ms (capture, vision, tracker, referee, push: last, p50, p95, mean); 404 when the
        table is not fed by a camera pipeline."""
        t = live.table(table_id)
        if t.pipeline is None:
            raise NotFound(f"table {table_id!r} has no live pipeline (it is fed by a recorded stream or the API)")
        return t.pipeline

    # ---------------------------------------------------------------------------------- matches
    @app.post("/api/tables/{table_id}/matches", tags=["matches"], status_code=201, dependencies=[Auth])
    async def start_match(table_id: IdParam, body: MatchCreate, live: LiveDep, request: Request) -> dict[str, Any]:
        """Start a new match on the table; earlier matches stay available for download. Without
        ``rules`` the server's default rule set applies (``gammonwatch serve --rules``)."""
        if "rules" not in body.model_fields_set:
            body = body.model_copy(update={"rules": request.app.state.settings.rules})
        return live.start_match(table_id, body).info()

    @app.get("/api/matches", tags=["matches"])
    async def list_matches(live: LiveDep) -> list[dict[str, Any]]:
        return [m.info() for m in live.matches.values()]

    @app.get("/api/matches/{match_id}", tags=["matches"])
    async def get_match(match_id: IdParam, live: LiveDep) -> dict[str, Any]:
        return live.match(match_id).info()

    @app.get("/api/matches/{match_id}/alerts", tags=["matches"])
    async def match_alerts(match_id: IdParam, live: LiveDep) -> list[dict[str, Any]]:
        return list(live.match(match_id).alerts.values())

    @app.get("/api/matches/{match_id}/transcript.mat", tags=["transcripts"], response_class=PlainTextResponse)
    async def match_transcript(match_id: IdParam, live: LiveDep) -> PlainTextResponse:
        """The match so far as a .mat (Jellyfish) file, which GNU Backgammon imports."""
        text = live.transcript(match_id)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="gammonwatch-{match_id}.mat"'}
        )

    # ---------------------------------------------------------------------------------- alerts
    @app.get("/api/tables/{table_id}/alerts", tags=["alerts"])
    async def table_alerts(table_id: IdParam, live: LiveDep) -> list[dict[str, Any]]:
        """Alerts of the table's current match, oldest first, with their status and decisions."""
        return live.alerts(table_id)

    @app.post("/api/tables/{table_id}/alerts/{alert_id}/decision", tags=["alerts"], dependencies=[Auth])
    async def decide(table_id: IdParam, alert_id: AlertIdParam, body: AlertDecision, live: LiveDep) -> dict[str, Any]:
        """The monitor's decision on an alert: acknowledge, let stand, or require correction."""
        return live.act(table_id, {"action": "decide", "alert_id": alert_id, "decision": body.decision.value, "note": body.note})

    # ---------------------------------------------------------------------------------- corrections
    @app.post("/api/tables/{table_id}/corrections/position", tags=["corrections"], dependencies=[Auth])
    async def set_position(table_id: IdParam, body: SetPosition, live: LiveDep) -> dict[str, Any]:
        """Set the referee's position by gnubg Position ID (and optional Match ID) or by XGID."""
        if (body.position_id is None) == (body.xgid is None):
            raise HTTPException(422, "give exactly one of position_id (with optional match_id) or xgid")
        action = {"action": "set_position", "position_id": body.position_id, "gnubg_match_id": body.match_id,
                  "xgid": body.xgid, "note": body.note}
        return live.act(table_id, {k: v for k, v in action.items() if v is not None})

    @app.post("/api/tables/{table_id}/corrections/undo", tags=["corrections"], dependencies=[Auth])
    async def undo(table_id: IdParam, body: Undo, live: LiveDep) -> dict[str, Any]:
        """Take back the last turn the referee recorded (position, dice and transcript line)."""
        return live.act(table_id, {"action": "undo", "note": body.note})

    @app.post("/api/tables/{table_id}/corrections/cube", tags=["corrections"], dependencies=[Auth])
    async def correct_cube(table_id: IdParam, body: CorrectCube, live: LiveDep) -> dict[str, Any]:
        return live.act(table_id, {"action": "cube", **body.model_dump()})

    @app.post("/api/tables/{table_id}/corrections/score", tags=["corrections"], dependencies=[Auth])
    async def correct_score(table_id: IdParam, body: CorrectScore, live: LiveDep) -> dict[str, Any]:
        action: dict[str, Any] = {"action": "score", "score": list(body.score), "note": body.note}
        if body.crawford is not None:
            action["crawford"] = body.crawford
        return live.act(table_id, action)

    @app.post("/api/tables/{table_id}/announce", tags=["corrections"], dependencies=[Auth])
    async def announce(table_id: IdParam, body: Announce, live: LiveDep) -> dict[str, Any]:
        """A spoken act the camera cannot see (a resignation, a forfeit), entered by the monitor."""
        return live.act(table_id, {"action": "announce", **body.model_dump(exclude_none=True)})

    # ---------------------------------------------------------------------------------- exports
    @app.get("/api/tables/{table_id}/transcript.mat", tags=["transcripts"], response_class=PlainTextResponse)
    async def table_transcript(table_id: IdParam, live: LiveDep) -> PlainTextResponse:
        """The .mat of the table's current match."""
        t = live.table(table_id)
        if t.match is None:
            raise Conflict(f"table {table_id!r} has no match yet")
        return await match_transcript(t.match.id, live)

    @app.get("/api/tables/{table_id}/events.jsonl", tags=["transcripts"], response_class=StreamingResponse)
    async def table_events(table_id: IdParam, live: LiveDep) -> StreamingResponse:
        """The table's event log (table states, alerts, monitor actions) as JSON lines."""
        live.table(table_id)
        return _jsonl(live.log.read(table_id=table_id), f"gammonwatch-{table_id}.jsonl")

    @app.get("/api/events.jsonl", tags=["transcripts"], response_class=StreamingResponse)
    async def all_events(live: LiveDep, after: Annotated[int, Query(ge=0, le=2**62)] = 0) -> StreamingResponse:
        """The whole event log as JSON lines (``after``: only events with a larger sequence number)."""
        return _jsonl(live.log.read(after=after), "gammonwatch-events.jsonl")

    # ---------------------------------------------------------------------------------- websocket
    @app.websocket("/ws/tables/{table_id}")
    async def ws_table(websocket: WebSocket, table_id: str, delay: float = 0.0, kinds: str = "") -> None:
        """Live feed of one table. First message: ``snapshot``; then ``view``, ``alert``,
        ``alert_status``, ``table`` and ``frame`` messages, each with the table's ``seq`` (no gaps).
        ``delay`` (seconds, <= 600) holds every message back for broadcasts (with ``kinds=view,table``);
        ``kinds`` (comma list) filters the message types."""
        await websocket.accept()
        live: Live = websocket.app.state.live
        wanted = frozenset(k for k in kinds.split(",") if k) or None
        problem = None
        if table_id not in live.tables:
            problem = f"no table {table_id!r}"
        elif not 0.0 <= delay <= MAX_DELAY_S:
            problem = f"delay must be 0..{MAX_DELAY_S:.0f} seconds"
        elif wanted is not None and not wanted <= WS_KINDS:
            problem = f"kinds must be a comma list of {', '.join(sorted(WS_KINDS))}"
        elif delay > 0 and not (wanted or WS_KINDS) <= HISTORY_KINDS:
            problem = f"a delayed feed carries only {','.join(sorted(HISTORY_KINDS))}: add kinds=view,table"
        if problem:
            await websocket.close(code=4404 if "no table" in problem else 4400, reason=problem)
            return
        await _serve_subscriber(websocket, live, table_id, delay, wanted)


async def _serve_subscriber(
    websocket: WebSocket, live: Live, table_id: str, delay: float, kinds: frozenset[str] | None
) -> None:
    hub = live.hub
    rate_headroom = int(delay * 50)  # a delayed client holds ``delay`` seconds of messages
    sub = hub.subscribe(table_id, kinds, extra_capacity=rate_headroom)
    try:
        if delay <= 0:
            snapshot = {"type": "snapshot", "table_id": table_id, "seq": hub.seq(table_id), "ts": time.time(),
                        **live.snapshot(table_id)}
        else:
            cutoff = time.time() - delay
            base = hub.last_before(table_id, "view", cutoff)
            if base is None:  # the table is younger than the delay: its first view, never the live one
                base = next((m for m in hub.history_since(table_id, cutoff) if m.kind == "view"), None)
            view = json.loads(base.text)["view"] if base else live.view(table_id)
            snapshot = {"type": "snapshot", "table_id": table_id, "seq": base.seq if base else hub.seq(table_id),
                        "ts": base.ts if base else time.time(), "view": view, "alerts": [], "delay": delay}
            for m in hub.history_since(table_id, cutoff):
                if sub.wants(m.kind) and m.seq > snapshot["seq"] and not sub.queue.full():
                    sub.queue.put_nowait(m)
        await websocket.send_json(snapshot)
        sender = asyncio.create_task(_send_loop(websocket, sub.queue, delay))
        receiver = asyncio.create_task(_receive_loop(websocket))
        done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in done:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
                task.result()
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.unsubscribe(sub)


async def _send_loop(websocket: WebSocket, queue: asyncio.Queue[Message | None], delay: float) -> None:
    while True:
        msg = await queue.get()
        if msg is None:
            await websocket.close(code=LAGGED_CLOSE_CODE, reason="lagged: too far behind; reconnect for a fresh snapshot")
            return
        if delay > 0:
            wait = msg.ts + delay - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
        await websocket.send_text(msg.text)


async def _receive_loop(websocket: WebSocket) -> None:
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return


def _jsonl(events: Iterator[Any], filename: str) -> StreamingResponse:
    def lines() -> Iterator[str]:
        for e in events:
            yield e.to_json() + "\n"

    return StreamingResponse(
        lines(), media_type="application/x-ndjson", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
