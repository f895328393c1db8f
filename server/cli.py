"""The one entry point, ``gammonwatch``.

Each subcommand belongs to the stage that implements it; this module only dispatches, importing the
stage lazily so that, for example, ``gammonwatch perft`` works without the simulator's packages.
A stage module exposes ``main(argv: list[str]) -> int`` taking the arguments after the subcommand.
"""

from __future__ import annotations

import importlib
import sys

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("server.livedemo", "run the whole pipeline on a simulated table and show the monitor page"),
    "serve": ("server.serve", "live monitoring from a camera, video, image folder, stream or recorded states"),
    "calibrate": ("calibration.cli", "camera intrinsics (ChArUco) and board localisation"),
    "recognize": ("vision.cli", "one image -> table state JSON"),
    "eval": ("vision.eval_cli", "accuracy reports for the vision models"),
    "replay": ("rules.replay", "check .mat transcripts move by move with the rules engine"),
    "referee": ("rules.referee_cli", "run the referee over a table-state stream; alerts as JSON lines"),
    "perft": ("rules.perft", "count distinct positions reachable from the start"),
    "position": ("rules.position_cli", "convert between gnubg Position/Match ID, XGID and a diagram"),
    "sim": ("sim.cli", "render labelled frames, videos or scripted matches"),
}


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: gammonwatch COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "gammonwatch COMMAND --help for the options of one command."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"gammonwatch: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module_name = COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or "?"
        if missing.split(".")[0] in {"rules", "vision", "calibration", "sim", "server"}:
            print(f"gammonwatch {name}: not available in this build ({module_name} is missing)", file=sys.stderr)
        else:
            print(
                f"gammonwatch {name}: needs the Python package {missing!r}, which is not installed.\n"
                f"Install the extras with: pip install -e '.[sim]' (or run 'make test', which sets up .venv).",
                file=sys.stderr,
            )
        return 2
    result: int = module.main(rest)
    return result


if __name__ == "__main__":
    sys.exit(main())
