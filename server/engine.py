"""The server's one seam to the referee: a match engine per match.

:class:`Engine` is what :mod:`server.live` needs from a referee; :class:`RefereeEngine` implements it
on :mod:`rules.referee` (the real referee: every alert, position, score and transcript comes from it;
the server never decides anything about the game itself).
"""

from __future__ import annotations

import copy
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
        """Try the action on a copy of the referee: whatever it refuses is refused before it is logged
        (the referee's own preconditions, without restating them here)."""
        trial = copy.copy(self)
        trial.ref = copy.deepcopy(self.ref)
        try:
            trial.apply_action(action)
        except EngineError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise EngineError(f"the referee refuses it: {exc}") from None

    def apply_action(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        if action["action"] == "announce":
            act = {k: action[k] for k in ("act", "player", "kind", "frame", "accepted") if action.get(k) is not None}
            return [a.to_json() for a in self.ref.announce(act)]
        out: list[dict[str, Any]] = []
        for decision in self._decisions(action):
            out += [a.to_json() for a in self.ref.decide(decision)]
        return out

    def _decisions(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """The referee decisions (``Referee.decide``) an action stands for; raises EngineError if impossible."""
        kind = action["action"]
        colour = self.setup.colour_of
        if kind == "undo":
            # the last completed turn (the referee refuses when there is none; check_action reports it)
            return [{"action": "undo_turn", "note": action.get("note", "")}]
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
            decision: dict[str, Any] = {"action": "set_score", "score": list(score)}
            if action.get("crawford") is not None:
                decision["crawford"] = bool(action["crawford"])
            return [decision]
        if kind == "set_position":
            return self._position_decisions(action)
        if kind == "announce":
            return []  # applied by Referee.announce (see apply_action)
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
        """The referee's match state, read from its public attributes (``Referee.snapshot()`` also
        formats the whole transcript, which is too slow to do for every table state)."""
        from rules import ids

        ref = self.ref
        setup = self.setup
        colour = setup.colour_of
        turn = int(ref.turn)
        match = ref.match
        cube = match.cube
        owner = None if cube.owner is None else int(cube.owner)
        offered_by = None if cube.offered_by is None else int(cube.offered_by)
        if offered_by is not None:
            zone = "board"
        elif owner is None:
            zone = "centre"
        else:
            zone = setup.seat_of_player(owner).value
        phys = ref.map.to_physical(ref.position)
        dice = list(ref.dice) if ref.dice else None
        board = {
            "light": list(phys.light),
            "dark": list(phys.dark),
            "bar": {"light": phys.bar[0], "dark": phys.bar[1]},
            "off": {"light": phys.off[0], "dark": phys.off[1]},
            "dice": [] if not dice else [
                {"value": v, "state": "at_rest", "valid": True, "owner": colour(turn).value,
                 "half": setup.orientation.right_half(colour(turn)).value}
                for v in dice
            ],
            "cube": {"value": cube.value, "zone": zone},
        }
        phase = ref.phase.value
        score = [int(match.score[0]), int(match.score[1])]
        info = ids.MatchInfo(
            match_length=match.length, score=(score[0], score[1]), cube_value=cube.value, cube_owner=owner,
            player_on_roll=turn, crawford=bool(match.crawford), game_state=2 if phase in ("game_over", "match_over") else 1,
            turn=turn, doubled=offered_by is not None, dice=(dice[0], dice[1]) if dice else None,
        )
        pending = ref.pending
        pending_json = None if pending is None else {
            "code": pending.code, "offender": colour(pending.offender).value, "alert": pending.alert_id,
            "deadline": pending.deadline.value,
        }
        return {
            "phase": phase,
            "phase_text": self._phase_text(phase, turn, dice, pending_json),
            "rules": ref.profile.name,
            "game": match.game,
            "turn": turn,
            "dice": dice,
            "score": score,
            "length": match.length,
            "crawford": bool(match.crawford),
            "post_crawford": bool(match.post_crawford),
            "winner": None if match.winner is None else int(match.winner),
            "cube": {"value": cube.value, "owner": owner, "offered_by": offered_by},
            "pips": [ref.position.pip_count(0), ref.position.pip_count(1)],
            "board": board,
            "position_id": ids.position_id(ref.position),
            "match_id": ids.match_id(info),
            "xgid": ids.to_xgid(ref.position, info),
            "pending_correction": pending_json,
            "transcript_rev": len(ref.games) * 10000 + sum(len(g.entries) for g in ref.games),
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
