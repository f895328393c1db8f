"""``gammonwatch serve``: the web server, fed by a camera, a video, an image folder, a stream or a recorded stream.

    gammonwatch serve --source camera:0 --calibration PROFILE.json      # live camera (reopened if it drops)
    gammonwatch serve --source video:match.mp4 --calibration PROFILE.json [--speed 0] [--exit-at-end]
    gammonwatch serve --source rtsp://host/stream --calibration PROFILE.json
    gammonwatch serve --source images:DIR --calibration PROFILE.json [--fps 10]
    gammonwatch serve --replay STATES.jsonl [--speed 2]                 # recorded table states, no vision
    gammonwatch serve                      # the server alone: tables and states over the REST API
    common: [--host 127.0.0.1] [--port 8000] [--db gammonwatch.db | postgresql://...] [--rules usbgf-2019]
            [--table t1] [--name "Feature table 1"] [--players Ann Bob] [--length 7]
            [--match-setup FILE] [--end-signal clock|bar_tap|lift_dice]

A live source runs the pipeline of ``server/pipeline.py`` (motion, hands, dice, board recognition,
tracker) and feeds every table state to the referee; the monitor page shows the camera, the
source's status and per-stage timings (also ``GET /api/tables/{id}/pipeline``). ``--calibration``
takes a profile from ``gammonwatch calibrate board`` or a simulator ``camera.json``.
``--match-setup`` reads the match (players, length, orientation, end signal) from a JSON file or the
``match_setup`` line of a JSON-lines file (as ``gammonwatch sim`` writes).

It prints the monitor page's URL and the monitor token. The event log survives restarts: run the
same command again and the server rebuilds its state from the log and carries on from the first
state not yet fed.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.app import Settings, create_app
from server.live import Live
from server.models import ClockMode, ClockSettings, MatchCreate, TableCreate
from server.sources import Source, SourceError, SourceUnavailable, open_source
from server.storage import EventLog, StorageError

log = logging.getLogger("gammonwatch.serve")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gammonwatch serve", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--replay", metavar="STATES.jsonl", help="play a recorded table-state stream in real time")
    src.add_argument("--source", metavar="SPEC", help="camera:N | video:PATH | rtsp://... | images:DIR | replay:PATH")
    p.add_argument("--calibration", metavar="PROFILE", help="calibration profile (or simulator camera.json) for a live --source")
    p.add_argument("--speed", type=float, default=1.0,
                   help="replay / video speed factor (2 = twice as fast; 0 = no waiting: every video frame, as fast as vision goes)")
    p.add_argument("--fps", type=float, default=30.0, help="frame rate of an images:DIR source (default 30)")
    p.add_argument("--buffer", type=int, default=8, help="frames queued between capture and vision; the oldest are dropped beyond it")
    p.add_argument("--dice-locator", choices=["model", "background"], default="model",
                   help="how dice are found: the recognizer's locator (default) or the classical detector against the quiet table")
    p.add_argument("--exit-at-end", action="store_true", help="stop the server when a video file or image folder ends")
    p.add_argument("--match-setup", metavar="FILE", help="match set-up JSON (or the match_setup line of a JSON-lines file)")
    p.add_argument("--end-signal", choices=["clock", "bar_tap", "lift_dice"],
                   help="how a turn ends at this table (default: the set-up's, else the rule set's)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", help="event log: SQLite path or postgresql:// URL (default: $GAMMONWATCH_DB or gammonwatch.db)")
    p.add_argument("--rules", default="usbgf-2019", help="rule set of the match (default usbgf-2019)")
    p.add_argument("--table", default="t1", help="table id for the fed stream (default t1)")
    p.add_argument("--name", default="Feature table 1", help="table name shown on the pages")
    p.add_argument("--players", nargs=2, metavar=("FIRST", "SECOND"), help="player names (default: from the stream)")
    p.add_argument("--length", type=int, help="match length (default: from the stream's match_setup, else 7)")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    return p


def match_for(args: argparse.Namespace, setup: dict[str, Any] | None) -> MatchCreate:
    """The match to start: the stream's ``match_setup`` line, overridden by the command line."""
    s = dict(setup or {})
    if getattr(args, "end_signal", None):
        s["end_signal"] = args.end_signal
    orientation = s.get("orientation") or {}
    players = args.players or s.get("players") or ("Player 1", "Player 2")
    score = s.get("score", (0, 0))
    return MatchCreate(
        players=(players[0], players[1]),
        length=args.length if args.length is not None else s.get("length", 7),
        rules=args.rules,
        dice_mode=s.get("dice_mode", "two"),
        first_colour=s.get("first_colour", "light"),
        near=orientation.get("near", "light"),
        home=orientation.get("home", "right"),
        score=(score[0], score[1]),
        end_signal=s.get("end_signal"),
        clock=ClockSettings(mode=ClockMode.TIMED if s.get("clock") else ClockMode.NONE),
        event="",
    )


def read_match_setup(path: str) -> dict[str, Any]:
    """The ``match_setup`` object of a JSON file, or the first ``match_setup`` line of a JSON-lines file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--match-setup {p}: cannot read it ({exc})") from None
    try:
        obj = json.loads(text)
        if isinstance(obj, dict):
            return obj
    except json.JSONDecodeError:
        pass
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--match-setup {p} line {n}: not JSON ({exc})") from None
        if isinstance(rec, dict) and rec.get("type") == "match_setup":
            return rec
    raise ValueError(f"--match-setup {p}: no match_setup object; give a JSON object with players, length, ... "
                     "or a JSON-lines file with a match_setup line")


def feed_job(source: Source, table: TableCreate, match: MatchCreate, on_end: Callable[[], None] | None = None) -> Any:
    """A lifespan background task that feeds ``source`` into the table, resuming after a restart."""

    async def run(live: Live) -> None:
        t = live.tables.get(table.id or "") or live.create_table(table)
        wanted = match.model_dump(mode="json")
        m = t.match
        if m is None or m.config != wanted:
            m = live.start_match(t.id, match)
        skip = m.states
        if skip:
            log.info("resuming %s after the %d states already in the event log", source.description, skip)
        fed = rejected = 0
        times = getattr(source, "times", None)
        if times is not None:
            live.stage_times[t.id] = times
        async for item in source.items(skip):
            if item.state is not None:
                try:
                    live.ingest(t.id, item.state)
                    fed += 1
                except ValueError as exc:
                    rejected += 1
                    log.error("table %s: state rejected: %s", t.id, exc)
            if item.announce is not None:
                act = {k: v for k, v in item.announce.items() if k in ("act", "player", "kind", "frame")}
                try:
                    live.act(t.id, {"action": "announce", **act})
                except ValueError as exc:
                    log.error("table %s: announcement %s rejected: %s", t.id, act, exc)
            if item.frame is not None:
                live.set_frame(t.id, item.frame)
            if item.status is not None:
                live.set_pipeline(t.id, {**item.status, "states_fed": fed, "states_rejected": rejected})
        log.info("%s finished: %d states fed, %d rejected", source.description, fed, rejected)
        final = live.tables[t.id].pipeline
        if final is not None:
            print("gammonwatch: pipeline at the end " + json.dumps(final, separators=(",", ":")), flush=True)
        if on_end is not None:
            on_end()

    return run


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    spec = f"replay:{args.replay}" if args.replay else args.source
    background = []
    server_box: list[Any] = []  # the uvicorn server, for --exit-at-end
    if spec:
        try:
            source = open_source(spec, speed=args.speed, calibration=args.calibration, buffer=args.buffer,
                                 dice_locator=args.dice_locator)
            if args.fps and hasattr(source, "fps"):
                source.fps = args.fps
        except (SourceUnavailable, SourceError) as exc:
            print(f"gammonwatch serve: {exc}", file=sys.stderr)
            return 2
        try:
            setup = read_match_setup(args.match_setup) if args.match_setup else getattr(source, "match_setup", None)
            match = match_for(args, setup)
        except ValueError as exc:
            print(f"gammonwatch serve: bad match settings: {exc}", file=sys.stderr)
            return 2
        table = TableCreate(id=args.table, name=args.name, source=spec)
        on_end = (lambda: server_box[0].__setattr__("should_exit", True)) if args.exit_at_end else None
        background.append(feed_job(source, table, match, on_end))
    settings = Settings.from_env(db=args.db, rules=args.rules)
    try:  # fail here, with the fix, rather than in the server's start-up
        EventLog.open(settings.db).close()
    except StorageError as exc:
        print(f"gammonwatch serve: {exc}", file=sys.stderr)
        return 2
    try:
        app = create_app(settings, background)
    except ValueError as exc:
        print(f"gammonwatch serve: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    base = f"http://{args.host}:{args.port}"
    print(f"gammonwatch: event log {settings.db}", flush=True)
    print(f"gammonwatch: monitor   {base}/monitor?table={args.table}#token={settings.token}", flush=True)
    print(f"gammonwatch: overlay   {base}/overlay?table={args.table}&layout=full&delay=0", flush=True)
    print(f"gammonwatch: API docs  {base}/docs", flush=True)
    if settings.token_generated:
        print(f"gammonwatch: monitor token (generated; set GAMMONWATCH_TOKEN to choose one): {settings.token}", flush=True)
    else:
        print("gammonwatch: monitor token from GAMMONWATCH_TOKEN", flush=True)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level, ws="auto")
    server = uvicorn.Server(config)
    server_box.append(server)
    try:
        server.run()
    except OSError as exc:
        print(f"gammonwatch serve: cannot listen on {args.host}:{args.port}: {exc}; choose another --port", file=sys.stderr)
        return 2
    return 0 if server.started else 1
