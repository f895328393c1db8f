"""Welsh alert and event codes (DIGEST C.26), each with the rule it cites.

The engine reports what happens as :class:`WelshEvent` values carrying one of these codes; a
referee profile turns them into alerts.  Errors raised for illegal actions carry a code too
(:class:`WelshRuleError`), so an illegal action and its alert share one name.
"""

from __future__ import annotations

from dataclasses import dataclass

#: code -> (rule cited, one-line meaning)
CODES: dict[str, tuple[str, str]] = {
    # throw validity and throw rules
    "WEL_COCKED_DICE": ("Welsh R7", "a die did not land flat on the table: both dice are thrown again"),
    "WEL_THIRD_IDENTICAL_THROW_REROLL": ("Welsh R7", "third identical throw in a row: throw again"),
    "WEL_ACEY_DEUCEY_OPTION": ("Welsh R13", "1-2 thrown: the player may throw both dice again"),
    "WEL_SINGLE_DIE_NOT_ALLOWED": ("Welsh R11", "a single die is only allowed while the thrower has a full spread"),
    "WEL_ACEY_DEUCEY_RETHROW": ("Welsh R13", "the 1-2 is thrown again instead of being played"),
    "WEL_RETHROW_NOT_ALLOWED": ("Welsh R7, R13 (W15)", "the dice were thrown again without a 1-2 to re-throw, or after a man moved"),
    # move legality
    "WEL_ROOF_ENTRY_FIRST": ("Welsh R16", "men on the roof must re-enter before any other man moves"),
    "WEL_ILLEGAL_SETTLE": ("Welsh R8-R11", "a man settled on a covered spike, a 7th man, or a protected spread"),
    "WEL_HIT_THEN_MOVED": ("Welsh R9 (W7)", "a man that hit moved again in the same turn"),
    "WEL_SKINNY_SEVEN_BAR_CROSS": ("Welsh R9", "a 5-2 throw took a man over the central bar"),
    "WEL_STREAM_NOT_EXACT": ("Welsh R15", "a man crossed the stream without the exact value"),
    "WEL_TWO_FULL_SPIKES": ("Welsh R10", "a turn ended with two full spikes of one player"),
    "WEL_BACKWARD_NOT_ROVER": ("Welsh R20", "a man that is not an activated rover moved backward"),
    "WEL_BACKWARD_ON_DOUBLES": ("Welsh R20", "a backward move on a doubles throw"),
    "WEL_CHECKOUT_NOT_ALL_HOME": ("Welsh R18", "a man checked out while a team-mate was outside Home"),
    "WEL_CHECKOUT_BUST": ("Welsh R18", "a man checked out with too big a value (bust)"),
    "WEL_SIX_MUST_VIOLATED": ("Welsh R18", "a throw with a 6 could check out a man but none was"),
    "WEL_FORWARD_MOVE_WAIVED": ("Welsh R7", "a playable value was not played"),
    "WEL_ILLEGAL_PLAY": ("Welsh R7-R20", "the position after the turn is not a legal result of the throw"),
    # cube
    "WEL_RAISE": ("Welsh R3, R24(vii)", "the doubling die was raised: no take or pass, the right passes across"),
    "WEL_DOUBLE_WITHOUT_RIGHT": ("Welsh R3", "the doubling die was raised by the player without the right"),
    "WEL_DOUBLE_DURING_TRIANGLE": ("Welsh R17a", "the doubling die cannot go up while a triangle stands"),
    "WEL_CUBE_ABOVE_64": ("Welsh R6", "the doubling die cannot go above 64"),
    "WEL_DOUBLE_NOT_BEFORE_THROW": ("Welsh R3", "the doubling die is raised only by a player about to roll"),
    "WEL_AUTO_RAISE": ("Welsh R16", "first dance of the game: the doubling die goes up one level"),
    # game-ending events
    "WEL_THREE_ON_ROOF": ("Welsh R14", "three men on the roof: the game is lost"),
    "WEL_WASH_STICKS": ("Welsh R22(i)", "candlesticks: both players have a full spike; the game is a wash"),
    "WEL_WASH_SNAKES": ("Welsh R22(ii)", "1-1 straight after the opponent's 1-1: the game is a wash"),
    "WEL_BOXES_OUT": ("Welsh R19", "6-6 with four men left in Home: all checked out"),
    "WEL_GAME_WON": ("Welsh R4, R5, R18", "all fifteen men checked out"),
    "WEL_CONCEDED": ("Welsh R18", "a concession offer was accepted"),
    # match-ending events
    "WEL_RECTANGLE": ("Welsh R17b", "fifteen men 3-3-3-3-3 in one quarter: the match is won"),
    "WEL_TIMED_OUT": ("Welsh R12a", "a player's clock ran out: the match is lost"),
    "WEL_MATCH_WON": ("Welsh R1", "a player reached the match length"),
    # extra turns and shapes
    "WEL_DANCE": ("Welsh R16", "the turn ended with a man still on the roof"),
    "WEL_TRIANGLE_FORMED": ("Welsh R17a", "a 4-3-2-1 triangle: the player rolls again"),
    "WEL_TRIANGLE_BROKEN": ("Welsh R17a", "the triangle is broken: the opponent plays again"),
    "WEL_TRIANGLE_SUSPENDED": ("Welsh R17a (W18)", "the triangle holder cannot move with any throw"),
    "WEL_FULL_SPREAD_FORMED": ("Welsh R11", "a blot on every spike of a quarter: those blots cannot be hit"),
    "WEL_ROVER_ACTIVE": ("Welsh R20", "a man alone in its quarter may move backward this turn"),
    "WEL_FIRST_CHECKOUT_BONUS": ("Welsh R18", "first check-out of the game: a bonus throw follows"),
    "WEL_BONUS_EXTRA": ("Welsh R18", "a double on a bonus throw: another turn"),
    # offers and nominations
    "WEL_CONCESSION_WINDOW_OPEN": ("Welsh R18", "one player has a one-throw win: the other may offer to concede"),
    "WEL_CONCESSION_OFFER": ("Welsh R18", "an offer to concede the game was made"),
    "WEL_CONCESSION_REJECTED": ("Welsh R18", "the offer to concede was rejected: play goes on"),
    "WEL_CONCESSION_OFFER_INVALID": ("Welsh R18 (W23)", "an offer outside the window, by the wrong player, or not below the exposure"),
    "WEL_CONCESSION_MANDATORY": ("Welsh R18", "an offer taking the opponent to 24 with the £5 payment must be accepted"),
    "WEL_NOMINATE": ("Welsh R21", "a throw was nominated"),
    "WEL_NOMINATE_INVALID_TIMING": ("Welsh R21, R24(iv)", "a nomination announced at the wrong moment"),
    "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN": ("Welsh R21", "a player may not nominate a match-winning throw for himself"),
    "WEL_NOMINATE_ALREADY_USED": ("Welsh R21", "each player nominates once per match"),
    "WEL_NOMINATED_THROW_MISMATCH": ("Welsh R21", "the dice were not set to the nominated throw"),
    # game start, clocks, breaks
    "WEL_ODDS_EVENS": ("Welsh R7, R24(i)", "odds and evens decided who starts the game"),
    "WEL_TEN_FOR_TWO": ("Welsh R12b", "both clocks under ten minutes: the game starts with the die at 2"),
    "WEL_CLOCK_NOT_STOPPED_END_TURN": ("Welsh R24(iii)", "the turn ended but the clock was not stopped"),
    "WEL_CLOCK_STOPPED_WITH_FOLLOWUP": ("Welsh R24(iii)", "the clock was stopped although the player has a follow-up turn"),
    "WEL_BREAK_TRIGGER": ("Welsh (D)", "a 10-minute break is due"),
    "WEL_PENALTY_GAME_DUE": ("Welsh (D)", "penalty games are due for lateness"),
    "WEL_MATCH_GAME": ("Welsh R24(viii)", "this game could decide the match"),
    "WEL_OUT_OF_TURN": ("Welsh R7", "an action by the player who is not on turn"),
}


@dataclass(frozen=True, slots=True)
class WelshEvent:
    """Something significant that happened in a game (R24(vi): worth a tap on the table)."""

    code: str
    player: int | None
    detail: str = ""

    @property
    def rule(self) -> str:
        return CODES[self.code][0]

    def __str__(self) -> str:
        who = "" if self.player is None else f" ({('Red', 'Black')[self.player]})"
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.code}{who}{extra} [{self.rule}]"


class WelshRuleError(ValueError):
    """An action the Welsh rules do not allow; ``code`` is the matching alert code."""

    def __init__(self, code: str, message: str) -> None:
        if code not in CODES:
            raise KeyError(f"unknown Welsh alert code {code}")
        super().__init__(f"{message} [{CODES[code][0]}]")
        self.code = code
