"""Server fan-out benchmark: 20 WebSocket clients, every update in order, latency referee -> client.

Starts ``gammonwatch serve`` as a real uvicorn process on loopback (fresh SQLite event log), connects
N WebSocket clients to one table, and feeds a recorded table-state stream over HTTP as fast as the
server takes it (and again at a fixed rate). Every message carries ``ts``, the server's clock when
the referee's output was published; each client notes when it received it (same machine, same
clock). It checks that every client received every message, in order (``seq`` without gaps), and
prints the latency percentiles. Peer in the same run: the same load with 1 client, and with 20
clients of which one never reads (it must not slow the others; the server cuts it off).

    python scripts/bench_server.py [--clients 20] [--rate 20] [--states FILE.jsonl]

Target (issue 6): p99 <= 100 ms with 20 clients on loopback.

Then the live pipeline (issue 7, ``--pipeline-only`` for this part alone): the frames of
``tests/data/e2e/clip.mp4`` (1280x720) through ``server.pipeline.FramePipeline`` (motion every frame,
dice located while moving, full recognition only when the tracker asks), against a peer in the same
run that recognises every frame in full; frames per second and the real-time factor at 30 fps.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from server.process import ServerProcess

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "data" / "server" / "scenario.jsonl"
SHARED_MATCH = REPO / ".." / "shared" / "data" / "matches" / "0014de9fc1cfb3a71112f0e67d09ad9b913938a4.txt"
TOKEN = "bench-token"
H = {"Authorization": f"Bearer {TOKEN}"}


def load_states(path: Path | None) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """A whole scripted match when the simulator's script and ../shared are there, else the test fixture."""
    if path is None and SHARED_MATCH.exists():
        try:
            from rules.matfile import load
            from sim.script import script_lines

            lines = [json.loads(x) for x in script_lines(load(SHARED_MATCH))]
            return lines[0], [x for x in lines[1:] if x["type"] == "table_state"], f"scripted {SHARED_MATCH.name}"
        except ImportError:
            pass
    src = path or FIXTURE
    lines = [json.loads(x) for x in src.read_text().splitlines() if x.strip()]
    return lines[0], [x for x in lines[1:] if x["type"] == "table_state"], str(src.relative_to(REPO) if src.is_relative_to(REPO) else src)


async def client(url: str, latencies: list[float], ready: asyncio.Event, done: asyncio.Event,
                 stall: bool = False) -> dict[str, Any]:
    """Receive until ``done``; record latencies; check that seq has no gaps."""
    got, gaps, closed = 0, 0, None
    async with websockets.connect(url, max_size=2**22) as ws:
        snap = json.loads(await ws.recv())
        last = snap["seq"]
        ready.set()
        if stall:  # never read again: the server must not wait for us
            await done.wait()
            try:
                await asyncio.wait_for(ws.recv(), 0.01)
            except (TimeoutError, websockets.ConnectionClosed) as exc:
                closed = getattr(exc, "rcvd", None)
            return {"got": 0, "gaps": 0, "closed": closed.code if closed else None}
        while True:
            recv = asyncio.ensure_future(ws.recv())
            fin = asyncio.ensure_future(done.wait())
            finished, _ = await asyncio.wait({recv, fin}, return_when=asyncio.FIRST_COMPLETED)
            if recv not in finished:
                recv.cancel()
                fin.cancel()
                break
            fin.cancel()
            now = time.time()
            msg = json.loads(recv.result())
            latencies.append(now - msg["ts"])
            gaps += msg["seq"] != last + 1
            last = msg["seq"]
            got += 1
    return {"got": got, "gaps": gaps, "last_seq": last, "closed": closed}


async def run(base: str, table: str, states: list[dict[str, Any]], n_clients: int, rate: float, stalled: int = 0) -> dict[str, Any]:
    url = base.replace("http", "ws") + f"/ws/tables/{table}"
    latencies: list[float] = []
    done = asyncio.Event()
    readies = [asyncio.Event() for _ in range(n_clients)]
    tasks = [asyncio.create_task(client(url, latencies, readies[i], done, stall=i < stalled)) for i in range(n_clients)]
    await asyncio.gather(*(e.wait() for e in readies))
    t0 = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, headers=H, timeout=30) as http:
        for i, s in enumerate(states):
            if rate > 0:
                wait = t0 + i / rate - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
            r = await http.post(f"/api/tables/{table}/states", json=s)
            r.raise_for_status()
        elapsed = time.perf_counter() - t0
    await asyncio.sleep(0.5)  # let the last messages arrive
    done.set()
    results = await asyncio.gather(*tasks)
    readers = results[stalled:]
    final_seq = max(r["last_seq"] for r in readers)
    complete = all(r["last_seq"] == final_seq and r["gaps"] == 0 for r in readers)
    lat = sorted(latencies)
    q = statistics.quantiles(lat, n=100) if len(lat) >= 100 else lat
    return {
        "clients": n_clients, "stalled": stalled, "states": len(states), "elapsed_s": elapsed,
        "messages_per_client": readers[0]["got"], "complete_in_order": complete,
        "p50_ms": 1000 * statistics.median(lat), "p99_ms": 1000 * (q[98] if len(q) >= 99 else lat[-1]), "max_ms": 1000 * lat[-1],
        "stalled_closed_with": [r["closed"] for r in results[:stalled]],
    }


def _stalled_text(codes: list[int | None]) -> str:
    if codes and codes[0] == 4008:
        return "cut off with close code 4008 (lagged)"
    return "not cut off: its socket buffers and its queue (512 messages) held the whole stream"


def bench_pipeline(repeat: int = 2) -> None:
    """Frames per second of the live pipeline and of a recognise-every-frame peer on the e2e clip."""
    from server.pipeline import FramePipeline, PipelineConfig, load_profile
    from vision.sources import OpenCVProducer

    data = REPO / "tests" / "data" / "e2e"
    clip = OpenCVProducer(str(data / "clip.mp4"))
    frames = []
    while (img := clip.read()) is not None:
        frames.append(img)
    clip.release()
    profile = load_profile(data / "camera.json")
    pipe = FramePipeline(profile)
    rec = pipe.recognizer
    rec.recognize(frames[0])  # models loaded and warm for both
    rows = []
    for name in ("pipeline (scheduled recognition)", "peer: full recognition of every frame"):
        per: list[float] = []
        recognitions = 0
        for r in range(repeat):
            p = FramePipeline(profile, recognizer=rec)
            # the pipeline keeps unchanged places' readings (from none) when its configuration says so (decision
            # 0747; off by default); the peer reads every frame whole
            rec.board_reader.keep_unchanged(name.startswith("pipeline") and PipelineConfig().keep_unchanged)
            for k, img in enumerate(frames):
                t0 = time.perf_counter()
                if name.startswith("pipeline"):
                    p.process(img, r * len(frames) + k, (r * len(frames) + k) / 30.0)
                else:
                    rec.recognize(img)
                per.append(time.perf_counter() - t0)
            recognitions += p.recognitions if name.startswith("pipeline") else len(frames)
        fps = len(per) / sum(per)
        rows.append((name, fps))
        print(f"{name}: {len(per)} frames of 1280x720, {fps:.1f} frames/s, per frame p50 "
              f"{statistics.median(per) * 1e3:.1f} ms, max {max(per) * 1e3:.0f} ms, full recognitions {recognitions}; "
              f"real-time factor at 30 fps {fps / 30:.2f}", flush=True)
    print(f"pipeline vs peer: {rows[0][1] / rows[1][1]:.1f}x the frames per second (decoding not included; "
          f"load average {os.getloadavg()[0]:.1f})")


def main(argv: list[str]) -> int:
    if "--pipeline-only" in argv:
        bench_pipeline()
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--rate", type=float, default=20.0,
                   help="states per second in the paced run (default 20; a scripted match runs at about 2 per second)")
    p.add_argument("--states", type=Path, help="a table-state stream (JSON lines, first line match_setup)")
    args = p.parse_args(argv)
    setup, states, source = load_states(args.states)
    span = states[-1]["t"] - states[0]["t"]
    print(f"stream: {source}, {len(states)} table states over {span:.0f} s of play ({len(states) / span:.1f} per second in real time)")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (other work on the machine slows every figure)")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        srv = ServerProcess(Path(tmp) / "bench.db", token=TOKEN)
        try:
            scenarios = [
                ("1 client, as fast as possible", 1, 0.0, 0),
                (f"{args.clients} clients, as fast as possible", args.clients, 0.0, 0),
                (f"{args.clients} clients, {args.rate:g} states/s", args.clients, args.rate, 0),
                (f"{args.clients} clients (1 never reads), as fast as possible", args.clients, 0.0, 1),
            ]
            for i, (name, n, rate, stalled) in enumerate(scenarios):
                table = f"b{i}"
                httpx.post(f"{srv.base}/api/tables", json={"id": table, "name": name[:64]}, headers=H).raise_for_status()
                body = {"players": setup["players"], "length": setup["length"], "end_signal": setup.get("end_signal")}
                httpx.post(f"{srv.base}/api/tables/{table}/matches", json=body, headers=H).raise_for_status()
                r = asyncio.run(run(srv.base, table, states, n, rate, stalled))
                results.append((name, r))
                print(f"{name}: {r['states']} states in {r['elapsed_s']:.2f} s ({r['states'] / r['elapsed_s']:.0f}/s); "
                      f"{r['messages_per_client']} messages per client, all complete and in order: {r['complete_in_order']}; "
                      f"latency referee->client p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, max {r['max_ms']:.1f} ms"
                      + (f"; the client that never reads was {_stalled_text(r['stalled_closed_with'])}" if stalled else ""), flush=True)
        finally:
            srv.stop()
    target = next(r for name, r in results if name.startswith(f"{args.clients} clients, {args.rate:g}"))
    ok = target["p99_ms"] <= 100 and all(r["complete_in_order"] for _, r in results)
    print(f"target: {args.clients} clients p99 <= 100 ms at {args.rate:g} states/s, every update in order: "
          f"p99 {target['p99_ms']:.1f} ms -> {'PASS' if ok else 'FAIL'}")
    print("\nlive pipeline (issue 7):", flush=True)
    bench_pipeline()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
