"""The server's one seam to the referee: a match engine per match.

:class:`Engine` is what :mod:`server.live` needs from a referee; :class:`RefereeEngine` implements it
on :mod:`rules.referee` (the real referee: every alert, position, score and transcript comes from it;
the server never decides anything about the game itself).
"""

from __future__ import annotations

from typing import Any, Protocol

from rules.referee.tablestate import TableState


class EngineError(ValueError):
    """A match setting or monitor action the referee refuses; the message says why."""


class Engine(Protocol):
    """One match followed by a referee."""

    def start(self) -> list[dict[str, Any]]:
        """The alerts the referee raised when the match was set up."""
        ...

    def feed(self, state: TableState) -> list[dict[str, Any]]:
        """Apply one table state; the alerts (JSON objects of ``rules.referee.alerts.Alert``) it raised."""
        ...

    def check_action(self, action: dict[str, Any]) -> None:
        """Raise :class:`EngineError` if ``action`` cannot be applied now (nothing is logged then)."""
        ...

    def apply_action(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply a correction (``set_position``, ``undo``, ``cube``, ``score``); alerts it raised."""
        ...

    def decide(self, alert: dict[str, Any], decision: str) -> list[dict[str, Any]]:
        """Tell the referee the monitor's decision on one of its alerts; alerts it raised."""
        ...

    def view(self) -> dict[str, Any]:
        """The match as the referee follows it (see docs/server.md, "view.referee")."""
        ...

    def transcript_mat(self) -> str:
        """The match so far as a .mat file."""
        ...


class EngineFactory(Protocol):
    """Makes the engine of a new match (a class with a ``check_config`` static method fits)."""

    def __call__(self, config: dict[str, Any]) -> Engine: ...

    def check_config(self, config: dict[str, Any]) -> None:
        """Raise :class:`EngineError` for match settings the referee cannot follow."""
        ...


_OWNER_PLAYER = {"first": 0, "second": 1}


class RefereeEngine:
    """:class:`Engine` on :class:`rules.referee.Referee` (the real referee)."""

    def __init__(self, config: dict[str, Any]) -> None:
        from rules.referee import MatchSetup, Referee, get_profile
        from rules.referee.board import BoardMap

        self.setup = MatchSetup.from_json(_setup_json(config))
        self.ref = Referee(self.setup, get_profile(config["rules"], **config.get("rules_options", {})))
        self.map = BoardMap(self.setup)

    @staticmethod
    def check_config(config: dict[str, Any]) -> None:
        from rules.referee import MatchSetup, get_profile

        try:
            MatchSetup.from_json(_setup_json(config))
            get_profile(config["rules"], **config.get("rules_options", {}))
        except (ValueError, TypeError) as exc:
            raise EngineError(f"match settings refused by the referee: {exc}") from None

    # ------------------------------------------------------------------ inputs
    def start(self) -> list[dict[str, Any]]:
        """The alerts raised when the match was set up (MATCH_START, GAME_START, CRAWFORD_GAME)."""
        return [a.to_json() for a in self.ref.alerts]

    def feed(self, state: TableState) -> list[dict[str, Any]]:
        return [a.to_json() for a in self.ref.feed(state)]

    def decide(self, alert: dict[str, Any], decision: str) -> list[dict[str, Any]]:
        return [a.to_json() for a in self.ref.decide({"action": decision, "alert": alert.get("ref_id")})]

    def check_action(self, action: dict[str, Any]) -> None:
        self._decisions(action)

    def apply_action(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for decision in self._decisions(action):
            out += [a.to_json() for a in self.ref.decide(decision)]
        return out

    def _decisions(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """The referee decisions (``Referee.decide``) an action stands for; raises EngineError if impossible."""
        kind = action["action"]
        ref = self.ref
        colour = self.setup.colour_of
        if kind == "undo":
            if ref.pending is None and (ref.roll_pos is None or ref.dice is None):
                raise EngineError("nothing to undo: the referee has no roll in the current turn to go back to")
            return [{"action": "rollback", "note": action.get("note", "")}]
        if kind == "cube":
            owner = _OWNER_PLAYER.get(action["owner"])
            if owner is None and action["value"] != 1 and self.setup.length:
                raise EngineError("a centred cube shows 64 and stands at 1: correct it to value 1, or give it an owner")
            return [{"action": "set_cube", "value": action["value"], "owner": None if owner is None else colour(owner).value}]
        if kind == "score":
            score = action["score"]
            if self.setup.length and max(score) >= self.setup.length:
                raise EngineError(f"a score of {score[0]}-{score[1]} ends a {self.setup.length}-point match; "
                                  "give the score before the current game")
            return [{"action": "set_score", "score": list(score)}]
        if kind == "set_position":
            return self._position_decisions(action)
        raise EngineError(f"unknown action {kind!r}")

    def _position_decisions(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        from rules import ids

        try:
            info: ids.MatchInfo | None
            if action.get("xgid"):
                position, info = ids.from_xgid(action["xgid"])
            else:
                text = action["position_id"] + (f":{action['gnubg_match_id']}" if action.get("gnubg_match_id") else "")
                position, info = ids.from_gnubg_id(text)
            board = self.map.to_physical(position)
        except ValueError as exc:
            raise EngineError(f"cannot set the position: {exc}") from None
        colour = self.setup.colour_of
        out: list[dict[str, Any]] = [{
            "action": "set_position",
            "board": {"light": list(board.light), "dark": list(board.dark), "bar": list(board.bar), "off": list(board.off)},
            "turn": colour(position.turn).value,
        }]
        if info is not None:
            owner = None if info.cube_owner is None else colour(info.cube_owner).value
            out.append({"action": "set_cube", "value": info.cube_value, "owner": owner})
            if self.setup.length and info.match_length == self.setup.length:
                out.append({"action": "set_score", "score": list(info.score)})
        return out

    # ------------------------------------------------------------------ outputs
    def view(self) -> dict[str, Any]:
        from rules import ids

        ref = self.ref
        snap = ref.snapshot()
        colour = self.setup.colour_of
        names = (colour(0).value, colour(1).value)
        turn = 0 if snap["turn"] == names[0] else 1
        cube = snap["cube"]
        cube_owner = None if cube["owner"] is None else names.index(cube["owner"])
        if cube["offered_by"] is not None:
            zone = "board"
        elif cube_owner is None:
            zone = "centre"
        else:
            zone = self.setup.seat_of_player(cube_owner).value
        pos = snap["position"]
        dice = snap["dice"]
        board = {
            "light": [p["light"] for p in pos["points"]],
            "dark": [p["dark"] for p in pos["points"]],
            "bar": pos["bar"],
            "off": pos["off"],
            "dice": [] if not dice else [
                {"value": v, "state": "at_rest", "valid": True, "owner": names[turn],
                 "half": self.setup.orientation.right_half(colour(turn)).value}
                for v in dice
            ],
            "cube": {"value": cube["value"], "zone": zone},
        }
        m = snap["match"]
        score = [m["score"][names[0]], m["score"][names[1]]]
        over = snap["phase"] in ("game_over", "match_over")
        info = ids.MatchInfo(
            match_length=m["length"], score=(score[0], score[1]), cube_value=cube["value"], cube_owner=cube_owner,
            player_on_roll=turn, crawford=bool(m["crawford"]), game_state=2 if over else 1, turn=turn,
            doubled=cube["offered_by"] is not None, dice=(dice[0], dice[1]) if dice else None,
        )
        transcript = snap["transcript"]
        return {
            "phase": snap["phase"],
            "phase_text": self._phase_text(snap["phase"], turn, dice, snap["pending_correction"]),
            "rules": snap["rules"],
            "game": snap["game"],
            "turn": turn,
            "dice": dice,
            "score": score,
            "length": m["length"],
            "crawford": m["crawford"],
            "post_crawford": m["post_crawford"],
            "winner": None if m["winner"] is None else names.index(m["winner"]),
            "cube": {"value": cube["value"], "owner": cube_owner,
                     "offered_by": None if cube["offered_by"] is None else names.index(cube["offered_by"])},
            "pips": [snap["pips"][names[0]], snap["pips"][names[1]]],
            "board": board,
            "position_id": pos["position_id"],
            "match_id": ids.match_id(info),
            "xgid": ids.to_xgid(ref.position, info),
            "pending_correction": snap["pending_correction"],
            "transcript_rev": len(transcript) * 1000 + sum(len(g["entries"]) for g in transcript),
        }

    def _phase_text(self, phase: str, turn: int, dice: list[int] | None, pending: dict[str, Any] | None) -> str:
        name = self.setup.players[turn]
        text = {
            "setup": "setting up the board",
            "opening": "opening roll",
            "pre_roll": f"{name} to roll (cube window open)",
            "rolling": f"{name} rolling",
            "moving": f"{name} to play {dice[0]}-{dice[1]}" if dice else f"{name} moving",
            "cube_pending": f"double offered to {self.setup.players[1 - turn]}",
            "game_over": "game over",
            "match_over": "match over",
        }.get(phase, phase)
        if pending:
            from rules.referee import Colour

            offender = self.setup.players[self.setup.player_of(Colour(pending["offender"]))]
            text += f" · correction pending: {pending['code']} by {offender}"
        return text

    def transcript_mat(self) -> str:
        from rules import matfile

        return matfile.dumps(self.ref.transcript())


def _setup_json(config: dict[str, Any]) -> dict[str, Any]:
    """The referee's ``match_setup`` JSON from the server's match settings (:class:`server.models.MatchCreate`)."""
    clock = config.get("clock") or {}
    out = {
        "type": "match_setup",
        "version": 1,
        "length": config["length"],
        "players": list(config["players"]),
        "first_colour": config.get("first_colour", "light"),
        "orientation": {"near": config.get("near", "light"), "home": config.get("home", "right")},
        "dice_mode": config.get("dice_mode", "two"),
        "clock": clock.get("mode") == "timed",
        "score": list(config.get("score", (0, 0))),
    }
    if config.get("end_signal"):
        out["end_signal"] = config["end_signal"]
    return out
