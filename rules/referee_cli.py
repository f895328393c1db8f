"""``gammonwatch referee STATES.jsonl [--rules R] [--json] [--transcript OUT.mat]``.

Runs the referee over a table-state stream (``-`` for standard input). With ``--json`` every alert
is printed as one JSON object per line (see :class:`rules.referee.alerts.Alert`); without it, one
readable line each. ``--min-severity`` hides what is below it (EVENT lines are shown by default).
Exit status: 0 when no VIOL/IRREG/WARN alert was raised, 1 when some were, 2 when the input cannot
be read at all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rules.matfile import dump
from rules.referee.alerts import Severity
from rules.referee.profiles import get_profile, profile_names
from rules.referee.setup import DiceMode, EndSignal, MatchSetup
from rules.referee.stream import run_stream

_ORDER = [Severity.INFO, Severity.EVENT, Severity.WARN, Severity.IRREG, Severity.VIOL]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gammonwatch referee", description="Run the referee over a table-state stream.")
    parser.add_argument("states", help="JSON-lines table-state stream (- for standard input)")
    parser.add_argument("--rules", default="usbgf-2019", help=f"rule set: {', '.join(profile_names())} (default usbgf-2019)")
    parser.add_argument("--moves-policy", choices=["legal", "responsible"], default="legal", help="wbgf-2023: Legal or Responsible Moves (WB23 1.1)")
    parser.add_argument("--dice-on-checkers", action="store_true", help="wbgf-2023: the TD has declared dice on checkers valid (WB23 4.1(iv)(c))")
    parser.add_argument("--no-jacoby", action="store_true", help="money: switch the Jacoby rule off")
    parser.add_argument("--no-beavers", action="store_true", help="money: switch beavers off")
    parser.add_argument("--automatic-doubles", type=int, default=1, help="money: automatic doubles per game (0 = off)")
    parser.add_argument("--length", type=int, help="match length (overrides the stream's match_setup; welsh: games to win, R1)")
    parser.add_argument("--welsh-preset", default="welsh", help="welsh: a named rule set of rules.welsh.options.PRESETS (default welsh)")
    parser.add_argument("--dice-mode", choices=["two", "four"], help="two shared dice or four (overrides the stream)")
    parser.add_argument("--end-signal", choices=[e.value for e in EndSignal], help="how turns end (overrides the stream)")
    parser.add_argument("--json", action="store_true", help="one JSON object per alert")
    parser.add_argument("--min-severity", choices=[s.value for s in _ORDER], default="EVENT", help="hide alerts below this (default EVENT)")
    parser.add_argument("--transcript", metavar="OUT.mat", help="write the match transcript the referee recorded")
    args = parser.parse_args(argv)

    misplaced = [flag for flag, used, rules in (
        ("--moves-policy", args.moves_policy != "legal", "wbgf-2023"),
        ("--dice-on-checkers", args.dice_on_checkers, "wbgf-2023"),
        ("--no-jacoby", args.no_jacoby, "money"),
        ("--no-beavers", args.no_beavers, "money"),
        ("--automatic-doubles", args.automatic_doubles != 1, "money"),
        ("--welsh-preset", args.welsh_preset != "welsh", "welsh"),
    ) if used and args.rules != rules]
    if misplaced:
        print(f"gammonwatch referee: {', '.join(misplaced)} only applies to another rule set than --rules {args.rules} "
              "(--moves-policy and --dice-on-checkers: wbgf-2023; --no-jacoby, --no-beavers, --automatic-doubles: money; "
              "--welsh-preset: welsh)",
              file=sys.stderr)
        return 2
    variant: dict[str, object] = {}
    if args.rules == "welsh":
        variant["preset"] = args.welsh_preset
        if args.length is not None:
            variant["match_length"] = args.length  # Welsh matches are counted in games (R1)
    try:
        profile = get_profile(
            args.rules,
            **variant,
            moves_policy=args.moves_policy,
            dice_on_checkers=args.dice_on_checkers,
            jacoby=not args.no_jacoby,
            beavers=not args.no_beavers,
            automatic_doubles=args.automatic_doubles,
        )
    except ValueError as exc:
        print(f"gammonwatch referee: {exc}", file=sys.stderr)
        return 2
    if args.states == "-":
        lines = sys.stdin
    else:
        path = Path(args.states)
        if not path.is_file():
            print(f"gammonwatch referee: {args.states}: no such file; give a JSON-lines table-state stream "
                  "(e.g. from 'gammonwatch sim script MATCH.mat > STATES.jsonl')", file=sys.stderr)
            return 2
        lines = path.open(encoding="utf-8")

    setup: MatchSetup | None = None
    overrides = {k: v for k, v in (("length", args.length), ("dice_mode", args.dice_mode and DiceMode(args.dice_mode)),
                                   ("end_signal", args.end_signal and EndSignal(args.end_signal))) if v is not None}
    if overrides:
        from rules.referee.stream import Record, read_stream

        first_lines = []
        for text in lines:
            first_lines.append(text)
            break
        base = MatchSetup()
        for rec in read_stream(first_lines):
            if isinstance(rec, Record) and rec.kind == "match_setup":
                base = rec.data
        setup = base.with_(**overrides)
        import itertools

        lines = itertools.chain(first_lines, lines)

    minimum = _ORDER.index(Severity(args.min_severity))
    flagged = 0
    try:
        referee, alerts = run_stream(lines, profile, setup)
        for alert in alerts:
            if alert.severity.is_alert:
                flagged += 1
            if _ORDER.index(alert.severity) < minimum:
                continue
            if args.json:
                print(json.dumps(alert.to_json(), separators=(",", ":")))
            else:
                who = f" [{alert.player_name} ({alert.player})]" if alert.player else ""
                cites = f" ({'; '.join(alert.rules)})" if alert.rules else ""
                print(f"{alert.severity.value:5} {alert.code}{who}: {alert.message}{cites}")
    finally:
        if hasattr(lines, "close"):
            lines.close()
    if args.transcript:
        dump(referee.transcript(), args.transcript)
    return 1 if flagged else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
