"""``gammonwatch demo``: a simulated table plays a match through the real pipeline; the monitor page shows it live.

    gammonwatch demo [--port 8000] [--host 127.0.0.1] [--speed 1] [--fps 10] [--seed 0] [--cache DIR]
    gammonwatch demo --transcript [--brief] [--file MATCH.mat]     # the earlier demo: a transcript replay

What happens:

1. The simulator scripts games 2-4 of the bundled 3-point match (``rules/data/demo_match.mat``;
   game 4 is the Crawford game) with four irregularities woven in: an illegal move, a cocked die,
   a premature roll and a double in the Crawford game (:func:`server.simtable.demo_script`).
2. A background process renders each table state of the script (about one CPU-second each) into a
   cache folder (``$XDG_CACHE_HOME/gammonwatch/demo/KEY``, else ``~/.cache/...``); a later demo
   reuses it and starts at once.
3. The rendered frames are played as a camera at ``--fps`` and go through the live pipeline of
   ``gammonwatch serve`` (``server/pipeline.py``: motion, hands, dice, board recognition, tracker)
   into the referee. The simulator's ground truth is never fed: only pixels. The calibration is the
   simulated camera's (what ``gammonwatch calibrate board`` gives for a real one).
4. The server prints the monitor URL and token; the page shows the camera, the board as seen, the
   referee's alerts as they happen, the transcript, and the pipeline's status and per-stage timings.
   While the renderer is behind the camera waits, so the first run is slower than real time; the
   page says so.

Resignations are spoken, not seen: the demo enters the script's resignation as the monitor would
(``announce``), at its time.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("gammonwatch.demo")


def cache_root(arg: str | None = None) -> Path:
    if arg:
        return Path(arg)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gammonwatch" / "demo"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gammonwatch demo", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--transcript", action="store_true", help="the earlier demo: replay the bundled transcript in the terminal")
    p.add_argument("--brief", action="store_true", help="with --transcript: one line per move")
    p.add_argument("--file", help="with --transcript: another .mat file")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--speed", type=float, default=1.0,
                   help="table speed (1 = real time; the renderer, and vision on a slow machine, may hold it back)")
    p.add_argument("--drop-frames", action="store_true",
                   help="behave like a live camera: drop the oldest frames when vision falls behind (default: "
                        "every frame goes to vision and the table slows down instead)")
    p.add_argument("--fps", type=float, default=10.0, help="camera frame rate of the simulated table (default 10)")
    p.add_argument("--dice-locator", choices=["model", "background"], default="model",
                   help="how dice are found: the recognizer's locator (default) or the classical detector against the quiet table")
    p.add_argument("--seed", type=int, default=0, help="simulator seed (camera, board, dice poses)")
    p.add_argument("--cache", help="folder for the rendered frames (default ~/.cache/gammonwatch/demo)")
    p.add_argument("--frames", metavar="DIR", help="play this rendered folder (a demo cache folder) instead of "
                   "the current script's; nothing is rendered")
    p.add_argument("--db", help="event log (default: a fresh SQLite file in a temporary folder)")
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    return p


def wait_for_first_frame(folder: Path, proc: Any, timeout: float = 300.0) -> None:
    """Until the renderer has written the camera and the first state (or failed)."""
    t0 = time.monotonic()
    while not ((folder / "camera.json").exists() and (folder / "index.jsonl").exists()
               and (folder / "index.jsonl").stat().st_size > 0):
        if proc is not None and proc.poll() is not None:
            tail = (folder / "render.log").read_text(errors="replace")[-800:] if (folder / "render.log").exists() else ""
            raise RuntimeError(f"the simulator's renderer failed (exit code {proc.returncode}); its log "
                               f"{folder / 'render.log'} ends with:\n{tail}\nIs the simulator installed "
                               "('make venv' installs the [sim] extra and PyOpenGL 3.1.7)?")
        if time.monotonic() - t0 > timeout:
            raise RuntimeError(f"no rendered frame after {timeout:.0f} s; see {folder / 'render.log'}")
        time.sleep(0.3)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.transcript:
        from server.demo import main as transcript_main

        return transcript_main((["--brief"] if args.brief else []) + (["--file", args.file] if args.file else []))
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        import pybullet  # noqa: F401
        import pyrender  # noqa: F401
    except ImportError as exc:
        print(f"gammonwatch demo: the simulator needs {exc.name!r}; install the extras with "
              "pip install -e '.[sim]' (or run 'make demo', which sets up .venv)", file=sys.stderr)
        return 2
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    from server.app import Settings, create_app
    from server.live import Live
    from server.models import MatchCreate, TableCreate
    from server.pipeline import PipelineConfig, PipelineError, load_profile
    from server.serve import feed_job, match_for
    from server.simtable import RenderedTableProducer, demo_script, iter_announcements, start_render
    from server.sources import LiveSource
    from server.storage import EventLog, StorageError

    script = demo_script(seed=args.seed)
    folder = Path(args.frames) if args.frames else cache_root(args.cache) / script.key()
    if args.frames and not (folder / "index.jsonl").exists():
        print(f"gammonwatch demo: --frames {folder}: not a rendered folder (no index.jsonl); give a folder of "
              f"{cache_root(args.cache)}", file=sys.stderr)
        return 2
    cached = (folder / "done.json").exists()
    proc = None if args.frames else start_render(script, folder, fps=args.fps)
    print(f"gammonwatch demo: simulated table frames in {folder} "
          f"({'cached: starts at once' if cached else 'rendering in the background, about 1 CPU-second per table state'})",
          flush=True)
    try:
        wait_for_first_frame(folder, proc)
        profile = load_profile(folder / "camera.json")
    except (RuntimeError, PipelineError) as exc:
        print(f"gammonwatch demo: {exc}", file=sys.stderr)
        return 2
    import json

    meta = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    setup = meta["setup"]
    producer = RenderedTableProducer(folder, fps=args.fps, speed=args.speed, renderer=proc, live=args.drop_frames)

    def extra() -> dict[str, Any]:
        total = producer.total_frames
        rtf = source.video_t / max(1e-6, time.monotonic() - source.started)
        parts = [f"Simulated table: {producer.rendered} frames rendered" + (f" of {total}." if total else " so far."),
                 "Rendered frames go through the real vision pipeline; the simulator's ground truth is never fed "
                 "to the referee."]
        if producer.waited_s > 0.5:
            parts.append(f"The renderer (about 1 CPU-second per image) is behind: the table waited {producer.waited_s:.0f} s "
                         "for it so far.")
        if rtf < 0.95:
            parts.append(f"The demo runs slower than real time ({rtf:.2f}x)"
                         + ("" if args.drop_frames else ": every frame goes to vision, which is slower than the "
                            "camera on this machine") + ".")
        note = " ".join(parts)
        return {"note": note, "demo": {"rendered": producer.rendered, "total": total, "waited_s": round(producer.waited_s, 1),
                                       "injections": meta["notes"], "cache": str(folder)}}

    source = LiveSource("sim:demo", profile, producer=producer, status_s=1.0, extra_status=extra,
                        config=PipelineConfig(dice_locator="model" if args.dice_locator == "model" else "background"))
    setup_args = argparse.Namespace(players=None, length=None, rules="usbgf-2019", end_signal=None)
    match: MatchCreate = match_for(setup_args, setup)
    table = TableCreate(id="t1", name="Demo table (simulated)", source="simulated table")
    announcements: list[tuple[float, dict[str, Any]]] = []

    async def announcer(live: Live) -> None:
        """Enters the script's spoken acts (resignations) when the table reaches them, as a monitor would."""
        pending: list[tuple[float, dict[str, Any]]] = []
        while not producer.complete or pending or not announcements:
            await asyncio.sleep(0.25)
            if not announcements and producer.complete:
                announcements.extend(iter_announcements(folder, args.fps))  # known once the script is rendered
                pending = sorted(announcements, key=lambda x: x[0])
                if not pending:
                    return
            if "t1" not in live.tables or live.tables["t1"].match is None:
                continue
            while pending and producer.t >= pending[0][0]:
                _, rec = pending.pop(0)
                act = {k: v for k, v in rec.items() if k in ("act", "player", "kind")}
                try:
                    live.act("t1", {"action": "announce", **act, "note": "entered by the demo (spoken, not seen)"})
                except (ValueError, LookupError) as exc:
                    log.warning("demo: announcement %s not accepted: %s", act, exc)

    db = args.db or str(Path(tempfile.mkdtemp(prefix="gammonwatch-demo-")) / "demo.db")
    settings = Settings.from_env(db=db, rules="usbgf-2019")
    try:
        EventLog.open(settings.db).close()
    except StorageError as exc:
        print(f"gammonwatch demo: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings, [feed_job(source, table, match), announcer])
    import uvicorn

    base = f"http://{args.host}:{args.port}"
    print(f"gammonwatch demo: injected irregularities: {'; '.join(meta['notes'])}", flush=True)
    print(f"gammonwatch demo: monitor  {base}/monitor?table=t1#token={settings.token}", flush=True)
    print(f"gammonwatch demo: overlay  {base}/overlay?table=t1&layout=full&delay=0", flush=True)
    print(f"gammonwatch demo: pipeline {base}/api/tables/t1/pipeline", flush=True)
    print(f"gammonwatch demo: monitor token: {settings.token}", flush=True)
    print("gammonwatch demo: Ctrl-C stops it" + ("" if cached else "; the first run renders as it plays (slower than real "
                                                 "time); later runs reuse the frames"), flush=True)
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level))
    try:
        server.run()
    except OSError as exc:
        print(f"gammonwatch demo: cannot listen on {args.host}:{args.port}: {exc}; choose another --port", file=sys.stderr)
        return 2
    finally:
        source.stop()
        if proc is not None and proc.poll() is None:
            log.info("the renderer keeps going in the background to complete the cache (pid %d)", proc.pid)
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main())
