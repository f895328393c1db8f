"""``gammonwatch sim ...``: the table simulator's command line.

    gammonwatch sim frames --n N --out DIR [--seed S] [--workers W] [--styles A,B] [--state-mix ...]
                         [--layouts game=W,spread=W,tall=W] [--hands 0|1|2]
    gammonwatch sim agreement [--dice 1000] [--seed S]      physics labels vs the geometric measure
    gammonwatch sim sheets [--out docs/contact-sheets]      contact sheets per die state and board style
    gammonwatch sim styles                                  list the board styles
    gammonwatch sim script MATCH.mat ...                    the referee engineer's scripted table states
    gammonwatch sim video (--match FILE.mat | --random) --out DIR [--inject KIND] [--inject-at N]
                                                            a scripted match as video + ground-truth stream

Each subcommand takes --help. See docs/sim.md for the file layout and the label JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

USAGE = __doc__ or ""


def _frames(argv: list[str]) -> int:
    from sim.dicestate import TARGETS
    from sim.frames import FramesConfig, ManifestMismatch, run
    from sim.scene import parse_layouts, parse_mix
    from sim.styles import UnknownStyleError, parse_styles

    ap = argparse.ArgumentParser(prog="gammonwatch sim frames", description="labelled 1280x720 frames")
    ap.add_argument("--n", type=int, required=True, help="number of frames")
    ap.add_argument("--out", type=Path, required=True, help="output directory (resumable)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--styles", default=None, help="comma-separated board styles (default: all)")
    ap.add_argument("--state-mix", default=None,
                    help=f"die state weights NAME=W,... with names from {', '.join(TARGETS)}")
    ap.add_argument("--views", type=int, default=3, help="camera views per physical scene")
    ap.add_argument("--shadows", type=float, default=0.5, help="share of views rendered with shadows")
    ap.add_argument("--translucent", type=float, default=0.3, help="share of scenes with translucent precision dice")
    ap.add_argument("--layouts", default=None,
                    help="how the checkers stand, KIND=W,... with kinds game, spread, tall "
                         "(default: game and spread half each)")
    ap.add_argument("--hands", type=int, choices=(0, 1, 2), default=None,
                    help="hands over the table in every view (default: 0, 1 or 2 at random)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.n < 1:
        print("gammonwatch sim frames: --n must be at least 1", file=sys.stderr)
        return 2
    try:
        styles = parse_styles(a.styles)
        mix = parse_mix(a.state_mix)
        layouts = parse_layouts(a.layouts)
    except (UnknownStyleError, ValueError) as exc:
        print(f"gammonwatch sim frames: {exc}", file=sys.stderr)
        return 2
    cfg = FramesConfig(n=a.n, out=a.out, seed=a.seed, views=max(1, a.views), styles=styles, mix=mix,
                       shadows=a.shadows, translucent=a.translucent, layouts=layouts, hands=a.hands)
    try:
        written = run(cfg, workers=a.workers, progress=not a.quiet)
    except ManifestMismatch as exc:
        print(f"gammonwatch sim frames: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a worker died: what is written stays, the same command resumes
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(exc, BrokenProcessPool):
            print(f"gammonwatch sim frames: a worker process stopped ({exc}); the frames already in {a.out} "
                  f"are kept; run the same command again to resume", file=sys.stderr)
            return 1
        raise
    print(f"wrote {written} frames to {a.out} ({cfg.n} in the run)")
    return 0


def _agreement(argv: list[str]) -> int:
    from sim.scene import agreement_run, parse_mix

    ap = argparse.ArgumentParser(prog="gammonwatch sim agreement",
                                 description="physics die labels vs the geometric (pose-only) measure")
    ap.add_argument("--dice", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--state-mix", default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    try:
        mix = parse_mix(a.state_mix)
    except ValueError as exc:
        print(f"gammonwatch sim agreement: {exc}", file=sys.stderr)
        return 2
    res = agreement_run(a.dice, a.seed, mix)
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(format_agreement(res))
    return 0


def format_agreement(res: dict[str, object]) -> str:
    conf = res["confusion"]
    assert isinstance(conf, dict)
    names = sorted({*conf, *(g for row in conf.values() for g in row)})
    lines = [f"dice: {res['dice']} in {res['scenes']} scenes",
             f"reason agreement: {float(res['agreement']):.4f}   validity agreement: "  # type: ignore[arg-type]
             f"{float(res['validity_agreement']):.4f}",  # type: ignore[arg-type]
             "rows: physics label; columns: geometric measure",
             "            " + " ".join(f"{n[:10]:>10}" for n in names)]
    for p in names:
        row = conf.get(p, {})
        lines.append(f"{p[:11]:>11} " + " ".join(f"{row.get(g, 0):>10}" for g in names))
    return "\n".join(lines)


def _styles(argv: list[str]) -> int:
    from sim.styles import STYLES

    for name in sorted(STYLES):
        s = STYLES[name]
        print(f"{name:20} {s.material:8} rails: {s.rail_material}")
    return 0


def _sheets(argv: list[str]) -> int:
    from sim.sheets import main as sheets_main

    return sheets_main(argv)


def _script(argv: list[str]) -> int:
    import importlib

    module = importlib.import_module("sim.script")
    result: int = module.main(argv)
    return result


def _video(argv: list[str]) -> int:
    from sim.video import main as video_main

    return video_main(argv)


COMMANDS = {"frames": _frames, "agreement": _agreement, "styles": _styles, "sheets": _sheets,
            "script": _script, "video": _video}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"gammonwatch sim: unknown subcommand {cmd!r}; use one of {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    return COMMANDS[cmd](rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
