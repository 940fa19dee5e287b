"""The referee: a game's state, built from record events alone.

:class:`Game` is to a card table what python-chess's ``Board`` is to a chess
board: ``push`` an event (or its record dict) and the state moves on, or a
precise :class:`~companion.rules.errors.RuleError` says why it cannot and nothing
changes; ``pop`` takes the last event back. It does no I/O: the camera, the
tablet, the buttons and the store all speak to it in events.

>>> game = Game()
>>> game.push({"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy"], "chips": 100})
>>> game.push({"type": "deal", "dealer": "Ann"})
>>> game.board["pot"], game.balances["Ann"]
(4, 82)
>>> game.push({"type": "widow", "action": "keep"})
>>> game.push({"type": "play", "player": "Ann", "card": "5H"})
>>> game.push({"type": "play", "player": "Cy", "card": "7H"})
Traceback (most recent call last):
...
companion.rules.errors.NotNextCard: Cy cannot play 7H: the run expects 6H, or Ann reopens
>>> game.pop().type
'play'
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from companion.rules import legal
from companion.rules.cards import JOKER, RED_SUITS, SUITS, Card
from companion.rules.errors import (
    BadAmount,
    BadCombination,
    CardNotInPack,
    CardUnavailable,
    ConservationError,
    NotNextCard,
    OutOfTurn,
    RuleError,
    TooManyCards,
    UnknownPlayer,
    Withheld,
    WrongPhase,
)
from companion.rules.events import (
    Bet,
    Bid,
    Claim,
    Deal,
    Discard,
    Event,
    Fold,
    NewGame,
    Next,
    Pass,
    Play,
    Show,
    Showdown,
    Undo,
    Widow,
    as_event,
    parse_line,
)
from companion.rules.poker import PokerHand, rank_hand
from companion.rules.variants import Variant

PHASES = ("setup", "widow", "claims", "calls", "poker", "run", "between", "showdown", "over")
CARD_PHASES = ("claims", "calls", "poker", "run", "showdown")
"""The phases in which a card laid on the table is a play, a call, a claim or a shown hand; in the
others (setup, the widow, between hands, over) it means nothing to the record."""


class Movement(NamedTuple):
    """Chips moving between a player and a section (or between two players).

    A tuple of plain values, so that a long game's history costs the garbage
    collector nothing.
    """

    chips: int
    source: str
    target: str
    reason: str
    event: int
    """Index of the applied event that moved them (0 is the ``game`` line)."""


@dataclass
class _State:
    """Everything the rules need, and nothing that only describes the past.

    Kept apart from the logs so that a snapshot (for undo) stays small.
    """

    variant: Variant
    players: tuple[str, ...]
    total: int
    balances: dict[str, int]
    board: dict[str, int]
    phase: str = "setup"
    hands: int = 0
    dealer: str | None = None
    hand_size: dict[str, int] = field(default_factory=dict)
    widow_size: int = 0
    played: dict[str, list[Card]] = field(default_factory=dict)
    played_set: set[Card] = field(default_factory=set)
    holder: dict[Card, str] = field(default_factory=dict)
    dead: set[Card] = field(default_factory=set)
    joker_out: dict[str, int] = field(default_factory=dict)
    bids: list[tuple[str, int]] = field(default_factory=list)
    call_index: int = 0
    shows: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    bets: dict[str, int] = field(default_factory=dict)
    folded: set[str] = field(default_factory=set)
    claims: dict[str, set[Card]] = field(default_factory=dict)
    # the run
    suit: str | None = None
    expected: Card | None = None
    last_player: str | None = None
    last_card: Card | None = None
    stop_player: str | None = None
    """Set while a run has ended (or not yet begun) and someone must open."""
    ended_suit: str | None = None
    turn: str | None = None
    passed: set[str] = field(default_factory=set)
    fallback: bool = False
    """Where anyone may reopen: everybody passed, the stop player opens in any suit."""
    stops: list[Card] = field(default_factory=list)
    passed_over: set[Card] = field(default_factory=set)
    openings: list[tuple[str, Card]] = field(default_factory=list)
    streak_player: str | None = None
    streak: list[Card] = field(default_factory=list)
    run_won: set[str] = field(default_factory=set)
    """The sections won in this hand's run, for those that only the first to make them takes."""
    # what the last applied event did, for the board and the pages
    won: list[dict[str, Any]] = field(default_factory=list)
    out: str | None = None
    settlement: list[dict[str, Any]] = field(default_factory=list)

    def copy(self) -> _State:
        """A snapshot for undo: containers copied, cards and the variant shared (immutable)."""
        new = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, (dict, list, set)):
                setattr(new, name, value.copy())
        new.played = {p: cs.copy() for p, cs in self.played.items()}
        new.claims = {p: cs.copy() for p, cs in self.claims.items()}
        return new

    def cards_left(self, player: str) -> int:
        return self.hand_size[player] - len(self.played[player]) - self.joker_out.get(player, 0)

    def left_of(self, player: str) -> str:
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    @property
    def current_call(self) -> str | None:
        calls = self.variant.calls
        return calls[self.call_index] if self.phase == "calls" and self.call_index < len(calls) else None

    @property
    def betting_section(self) -> str | None:
        """The section bets go to now, or None when this is no time for betting."""
        if self.phase == "poker" or self.current_call == self.variant.poker_section:
            return self.variant.poker_section
        return None


class Game:
    """One game at one table: a ``game`` line and the events that followed."""

    def __init__(self) -> None:
        self._s: _State | None = None
        self._applied: list[tuple[Event, int]] = []
        self._checkpoints: list[tuple[int, _State]] = []
        self._log: list[tuple[int, int, str, str, tuple[tuple[str, Any], ...]]] = []
        """(event index, line, kind, text, fields): plain tuples, made into dicts for the view."""
        self._movements: list[Movement] = []
        self._flags: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        """Lines refused by :meth:`push_line`, with their reasons."""
        self._refusal_flags: list[dict[str, Any]] = []
        self._line = 0
        self._n = 0

    # ----------------------------------------------------------------- input

    def push(self, event: Event | Mapping[str, Any], *, line: int | None = None) -> None:
        """Apply one event, or raise a ``ValueError`` subclass and change nothing.

        ``line`` is where the event stands in its record (for flags); by
        default the count of events offered so far.
        """
        ev = as_event(event)
        self._line = self._line + 1 if line is None else line
        if isinstance(ev, Undo):
            self.pop()
            return
        if self._s is None:
            if not isinstance(ev, NewGame):
                raise WrongPhase("the record must start with a game line")
            self._start(ev)
            return
        if isinstance(ev, NewGame):
            raise WrongPhase("a game is already under way: a second game line is refused")
        s = self._s
        self._n = len(self._applied)
        marks = (len(self._log), len(self._movements), len(self._flags))
        handler = self._HANDLERS[type(ev)]
        before = (s.won, s.out)
        s.won, s.out = [], None
        if s.phase in ("claims", "calls", "poker") and isinstance(ev, Play):
            snapshot = s.copy()
            snapshot.won, snapshot.out = before
            try:
                while s.phase in ("claims", "calls", "poker"):
                    self._close_phase(s)
                handler(self, s, ev)
            except RuleError:
                self._s = snapshot
                self._truncate(*marks)
                raise
        else:
            try:
                handler(self, s, ev)
            except RuleError:
                s.won, s.out = before
                self._truncate(*marks)
                raise
        self._check_conservation()
        self._applied.append((ev, self._line))
        if isinstance(ev, Deal):
            self._checkpoints.append((len(self._applied), self._s.copy()))

    def push_line(self, event: Event | Mapping[str, Any] | str, *, line: int | None = None) -> bool:
        """Apply one record line as a replay does: a refusal is listed in
        :attr:`rejected` (and its flag kept) instead of raised. Returns whether
        it was applied."""
        number = self._line + 1 if line is None else line
        try:
            self.push(parse_line(event) if isinstance(event, str) else as_event(event), line=number)
            return True
        except ValueError as exc:
            self._line = number
            self.rejected.append({"line": number, "reason": str(exc)})
            flag = getattr(exc, "flag", None)
            if flag:
                self._refusal_flags.append({"line": number, **flag})
            return False

    def pop(self) -> Event:
        """Take back the last applied event (never the ``game`` line) and return it."""
        if len(self._applied) <= 1:
            raise WrongPhase("nothing to undo" if self._applied else "no game yet")
        ev, _ = self._applied.pop()
        while self._checkpoints and self._checkpoints[-1][0] > len(self._applied):
            self._checkpoints.pop()
        if self._checkpoints:
            start, state = self._checkpoints[-1]
            self._s = state.copy()
        else:
            start, self._s = 1, self._fresh_state(self._applied[0][0])  # type: ignore[arg-type]
        n_keep = len(self._applied)
        self._log = [e for e in self._log if e[0] < start]
        self._movements = [m for m in self._movements if m.event < start]
        self._flags = [f for f in self._flags if f["n"] < start]
        redo = self._applied[start:]
        del self._applied[start:]
        line_now = self._line
        for e, line in redo:
            self.push(e, line=line)
        self._line = line_now
        assert len(self._applied) == n_keep
        return ev

    # ---------------------------------------------------------------- output

    @property
    def started(self) -> bool:
        return self._s is not None

    @property
    def state(self) -> _State:
        if self._s is None:
            raise WrongPhase("no game yet")
        return self._s

    @property
    def variant(self) -> Variant:
        return self.state.variant

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def balances(self) -> dict[str, int]:
        return dict(self.state.balances)

    @property
    def board(self) -> dict[str, int]:
        return dict(self.state.board)

    @property
    def events(self) -> list[Event]:
        """The applied events, in order (undone ones gone)."""
        return [e for e, _ in self._applied]

    @property
    def movements(self) -> list[Movement]:
        return list(self._movements)

    @property
    def flags(self) -> list[dict[str, Any]]:
        """Flags of applied events and of refused plays, in line order, as docs/record.md writes them."""
        out = [{k: v for k, v in f.items() if k != "n"} for f in self._flags] + self._refusal_flags
        return sorted(out, key=lambda f: f["line"])

    def cards_left(self, player: str) -> int | None:
        s = self.state
        return s.cards_left(player) if s.hand_size else None

    def summary(self) -> dict[str, Any]:
        """The replay summary of docs/record.md."""
        s = self.state
        return {
            "variant": s.variant.name,
            "hands": s.hands,
            "phase": s.phase,
            "balances": dict(s.balances),
            "board": dict(s.board),
            "rejected": list(self.rejected),
            "flags": self.flags,
        }

    def view(self, *, log_size: int = 30) -> dict[str, Any]:
        """Everything the scoreboard and the board need, JSON-able."""
        s = self.state
        in_hand = s.phase not in ("setup", "showdown", "over") and bool(s.hand_size)
        betting = s.betting_section
        view = self.summary()
        view.update(
            players=[
                {
                    "name": p,
                    "balance": s.balances[p],
                    "hand_size": s.hand_size.get(p) if in_hand else None,
                    "cards_left": s.cards_left(p) if in_hand else None,
                    "dealer": p == s.dealer,
                    "folded": p in s.folded,
                }
                for p in s.players
            ],
            dealer=s.dealer,
            sections=[
                {"name": n, "title": s.variant.section_titles[n], "chips": s.board[n]} for n in s.variant.sections
            ],
            call=s.current_call,
            run={
                "suit": s.suit,
                "last_card": str(s.last_card) if s.last_card else None,
                "last_player": s.last_player,
                "next_card": str(s.expected) if s.expected else None,
                "to_reopen": (s.turn or s.stop_player) if s.phase == "run" and s.suit is None else None,
                "stops": [str(c) for c in s.stops],
                "played": {p: [str(c) for c in cs] for p, cs in s.played.items()},
            },
            poker=(
                {
                    "section": betting,
                    "bets": dict(s.bets),
                    "folded": sorted(s.folded),
                    "shown": {p: [str(c) for c in cs] for p, cs in s.shows.items()},
                }
                if betting or s.phase == "showdown"
                else None
            ),
            widow=({"bids": [{"player": p, "chips": c} for p, c in s.bids]} if s.phase == "widow" else None),
            won=list(s.won),
            out=s.out,
            settlement=list(s.settlement),
            log=[
                {"n": n, "line": line, "kind": kind, **{k: list(v) if isinstance(v, tuple) else v for k, v in fields}, "text": text}
                for n, line, kind, text, fields in self._log[-log_size:]
            ],
            over=s.phase == "over",
            final=final_standings(s.balances, s.total // len(s.players)) if s.phase == "over" else None,
            title=s.variant.title,
            expect=[p.to_dict() for p in self.legal_plays()],
        )
        return view

    def legal_plays(self) -> tuple[legal.LegalPlay, ...]:
        """What the referee would accept now, as :mod:`companion.rules.legal` values.

        Cards the table has seen (played, dead, shown by another player,
        passed over) are refused whatever these say; :meth:`settle` weighs both.

        >>> game = Game()
        >>> game.push({"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy"], "chips": 100})
        >>> for e in ({"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, {"type": "next"},
        ...           {"type": "play", "player": "Ann", "card": "4D"}):
        ...     game.push(e)
        >>> [str(p) for p in game.legal_plays()]
        ['Next: 5♦', 'Ann reopens in another suit', 'Ann may pass']
        >>> legal.summary(game.legal_plays())
        'Next: 5♦, or Ann reopens in another suit'
        """
        s = self.state
        phase, v = s.phase, s.variant
        if phase == "over":
            return ()
        if phase == "run":
            return self._run_plays(s)
        if phase in ("setup", "between"):
            dealers = s.players if s.dealer is None else (s.left_of(s.dealer),)
            return (legal.NextDeal(dealers), legal.Showdown())
        if phase == "widow":
            assert s.dealer is not None
            bidders = tuple(p for p in s.players if p != s.dealer) if "sell" in v.widow_actions else ()
            return (legal.WidowChoice(s.dealer, v.widow_actions, bidders),)
        if phase == "claims":
            return (legal.Claiming(s.players), legal.Close("claims"))
        call = s.current_call or phase  # a call, or poker, or the showdown
        plays: list[legal.LegalPlay] = []
        order = self._from(s, s.dealer) if s.dealer else s.players
        if s.betting_section is not None:
            turn = next((p for p in order if p not in s.folded and p not in s.bets and p not in s.shows), None)
            plays.append(legal.Betting(s.betting_section, tuple(p for p in order if p not in s.folded), turn))
        wild = bool(v.jokers) and (phase == "showdown" or JOKER not in s.dead)  # the showdown deals a fresh pack
        count, cards = v.show_shape(call)
        showers = tuple(
            p for p in order
            if p not in s.shows and p not in s.folded and (phase == "showdown" or s.cards_left(p) >= count)
        )
        if showers and not (JOKER in cards and not wild):
            plays.append(legal.ShowCards(call, count, cards, wild and JOKER not in cards, showers))
        plays.append(legal.Close(call))
        return tuple(plays)

    def settle(self, player: str, candidates: Iterable[str | Card]) -> Card | None:
        """The one card among an unsure read's ``candidates`` that ``player`` may lay in the run now.

        None when there are none or several: then a person must say.
        """
        s = self.state
        if s.phase != "run" or player not in s.balances:
            return None
        cards = []
        for c in candidates:
            try:
                cards.append(c if isinstance(c, Card) else Card.parse(c))
            except ValueError:
                continue
        fit = {
            c for c in legal.allowed_cards(self._run_plays(s), player, cards)
            if c not in s.passed_over and self._unavailable(s, player, c) is None
        }
        return fit.pop() if len(fit) == 1 else None

    @staticmethod
    def _from(s: _State, first: str) -> tuple[str, ...]:
        """The players in seating order, starting with ``first``."""
        i = s.players.index(first)
        return s.players[i:] + s.players[:i]

    def _run_plays(self, s: _State) -> tuple[legal.LegalPlay, ...]:
        v = s.variant
        active = tuple(p for p in s.players if s.cards_left(p) > 0)
        plays: list[legal.LegalPlay] = []
        ended: str | None
        if s.suit is not None:
            if s.expected is not None:
                holder = s.holder.get(s.expected)
                plays.append(legal.NextCard(s.expected, (holder,) if holder else active))
            stopper, ended, fallback = s.last_player, s.suit, False
        else:
            stopper, ended, fallback = s.stop_player, s.ended_suit, s.fallback
        assert stopper is not None
        every = frozenset(SUITS)
        if ended is None:
            plays.append(legal.Reopen((stopper,), every, "lead"))
        else:
            fits = frozenset(x for x in SUITS if _fits(v, x, ended))
            reason = v.options["reopen"]
            if v.reopen_turns == "anyone":
                by_rule = tuple(p for p in self._from(s, stopper) if p in active and p not in s.passed)
                if by_rule and not fallback:
                    plays.append(legal.Reopen(by_rule, fits, reason))
                if fallback or stopper not in s.passed:
                    plays.append(legal.Reopen((stopper,), every, "any-suit"))
            else:
                plays.append(legal.Reopen((s.turn or stopper,) if s.suit is None else (stopper,), fits, reason))
            if not fallback:
                plays.append(legal.PassTurn(stopper if s.suit is not None else s.turn or stopper))
        if v.jokers and JOKER not in s.dead:
            plays.append(legal.LayAside(active))
        return tuple(plays)

    # -------------------------------------------------------------- plumbing

    def _fresh_state(self, ev: NewGame) -> _State:
        players = ev.players
        variant = ev.make_variant()
        return _State(
            variant=variant,
            players=players,
            total=ev.chips * len(players),
            balances={p: ev.chips for p in players},
            board={name: 0 for name in variant.sections},
        )

    def _start(self, ev: NewGame) -> None:
        self._s = self._fresh_state(ev)
        self._applied.append((ev, self._line))
        self._n = 0
        self._note("game", f"A game of {self._s.variant.title} for {', '.join(ev.players)}, {ev.chips} chips each")

    def _truncate(self, n_log: int, n_moves: int, n_flags: int) -> None:
        del self._log[n_log:]
        del self._movements[n_moves:]
        del self._flags[n_flags:]

    def _check_conservation(self) -> None:
        s = self._s
        assert s is not None
        if sum(s.balances.values()) + sum(s.board.values()) != s.total:
            raise ConservationError(f"chips not conserved: {s.balances} {s.board} (total {s.total})")

    def _note(self, kind: str, text: str, **fields: Any) -> None:
        self._log.append((self._n, self._line, kind, text, tuple(fields.items())))

    def _move(self, chips: int, source: str, target: str, reason: str) -> None:
        """Move chips; ``source``/``target`` is a player or a section of the board."""
        if chips <= 0:
            return
        s = self._s
        assert s is not None
        (s.balances if source in s.balances else s.board)[source] -= chips
        (s.balances if target in s.balances else s.board)[target] += chips
        self._movements.append(Movement(chips, source, target, reason, self._n))

    def _take(self, player: str, section: str, why: str) -> int:
        """``player`` takes everything on ``section``."""
        s = self._s
        assert s is not None
        chips = s.board[section]
        if chips:
            self._move(chips, section, player, why)
            s.won.append({"section": section, "player": player, "chips": chips})
            self._note("win", f"{player} takes {chips} from {section}", player=player, section=section, chips=chips)
        return chips

    def _split(self, players: list[str], section: str, why: str) -> None:
        """Share a section evenly; an odd chip stays on it."""
        s = self._s
        assert s is not None
        if len(players) == 1:
            self._take(players[0], section, why)
            return
        share = s.board[section] // len(players)
        for p in players:
            if share:
                self._move(share, section, p, why)
                s.won.append({"section": section, "player": p, "chips": share})
                self._note("win", f"{p} takes {share} from {section} (split)", player=p, section=section, chips=share)

    # ------------------------------------------------------------ the checks

    def _player(self, s: _State, name: str) -> str:
        if name not in s.balances:
            raise UnknownPlayer(f"{name!r} is not at this table ({', '.join(s.players)})")
        return name

    def _in_pack(self, s: _State, card: Card) -> None:
        refusal = self._not_in_pack(s, card)
        if refusal is not None:
            raise refusal

    @staticmethod
    def _not_in_pack(s: _State, card: Card) -> RuleError | None:
        return CardNotInPack(f"there is no Joker in {s.variant.title}") if card.is_joker and not s.variant.jokers else None

    def _available(self, s: _State, player: str, card: Card) -> None:
        """The card may still be in ``player``'s hand, as far as the table has seen."""
        refusal = self._unavailable(s, player, card)
        if refusal is not None:
            raise refusal

    def _unavailable(self, s: _State, player: str, card: Card) -> RuleError | None:
        """Why ``card`` cannot be in ``player``'s hand, or None."""
        if (refusal := self._not_in_pack(s, card)) is not None:
            return refusal
        if card in s.played_set:
            return CardUnavailable(f"{card} was already played this hand")
        if card in s.dead:
            return CardUnavailable(f"{card} is dead this hand")
        holder = s.holder.get(card)
        if holder is not None and holder != player:
            return CardUnavailable(f"{card} was shown by {holder} this hand, not by {player}")
        return None

    def _need_phase(self, s: _State, ok: bool, what: str) -> None:
        if not ok:
            raise WrongPhase(f"{what} does not belong in the {s.phase} phase{self._phase_hint(s)}")

    def _phase_hint(self, s: _State) -> str:
        if s.phase == "widow":
            return ": the dealer keeps, exchanges or sells the widow first"
        if s.phase in ("setup", "between"):
            return ": deal first"
        if s.phase == "over":
            return ": the game is over"
        if s.current_call:
            return f" (the {s.current_call} call is open)"
        return ""

    # -------------------------------------------------------------- handlers

    def _on_deal(self, s: _State, ev: Deal) -> None:
        self._need_phase(s, s.phase in ("setup", "between"), "a deal")
        dealer = self._player(s, ev.dealer)
        if s.dealer is not None and dealer != s.left_of(s.dealer):
            raise OutOfTurn(f"the deal passes left: {s.left_of(s.dealer)} deals now, not {dealer}")
        v = s.variant
        order = [s.players[(s.players.index(dealer) + i) % len(s.players)] for i in range(1, len(s.players) + 1)]
        hands: list[str | None] = list(order)
        hands.insert(0 if v.options["widow_position"] == "first" else len(hands), None)
        base, extra = divmod(v.pack_size, len(hands))
        sizes = {who: base + (1 if i < extra else 0) for i, who in enumerate(hands)}
        s.phase = "widow"
        s.hands += 1
        s.dealer = dealer
        s.widow_size = sizes.pop(None)
        s.hand_size = sizes  # type: ignore[assignment]
        s.played = {p: [] for p in s.players}
        s.played_set = set()
        s.holder, s.dead, s.joker_out = {}, set(), {}
        s.bids, s.call_index, s.shows, s.bets, s.folded, s.claims = [], 0, {}, {}, set(), {}
        s.suit = s.expected = s.last_player = s.last_card = None
        s.stop_player = s.ended_suit = s.turn = None
        s.passed, s.fallback = set(), False
        s.stops, s.passed_over, s.openings = [], set(), []
        s.streak_player, s.streak, s.run_won = None, [], set()
        s.settlement = []
        self._note("deal", f"{dealer} deals (hand {s.hands})", player=dealer)
        for p in s.players:
            ante = v.dealer_ante if p == dealer else v.ante
            for section in v.sections:
                self._move(ante, p, section, "ante")
            self._note("ante", f"{p} antes {ante * len(v.sections)}", player=p, chips=ante * len(v.sections))

    def _on_widow(self, s: _State, ev: Widow) -> None:
        self._need_phase(s, s.phase == "widow", "a widow decision")
        v = s.variant
        if ev.action not in v.widow_actions:
            raise RuleError(f"{ev.action} is not a {v.title} choice: the dealer may {' or '.join(sorted(v.widow_actions))}")
        dealer = s.dealer
        assert dealer is not None
        if ev.action == "exchange":
            s.hand_size[dealer] = s.widow_size
            self._note("widow", f"{dealer} exchanges his hand for the widow", player=dealer, action="exchange")
        elif ev.action == "sell" and s.bids:
            buyer, price = s.bids[-1]
            self._move(price, buyer, dealer, "widow")
            s.hand_size[buyer] = s.widow_size
            self._note("widow", f"{buyer} buys the widow from {dealer} for {price}", player=buyer, chips=price, action="sell")
        elif ev.action == "sell":
            self._note("widow", "Nobody bids: the widow is dead", action="sell")
        else:
            self._note("widow", f"{dealer} keeps his hand", player=dealer, action="keep")
        s.bids = []
        s.phase = "claims" if v.has_claims else "calls" if v.calls else "poker"

    def _on_bid(self, s: _State, ev: Bid) -> None:
        self._need_phase(s, s.phase == "widow", "a bid")
        player = self._player(s, ev.player)
        if player == s.dealer:
            raise OutOfTurn(f"{player} deals: the dealer does not bid for his own widow")
        if s.bids and ev.chips <= s.bids[-1][1]:
            raise BadAmount(f"a bid must top {s.bids[-1][1]} ({s.bids[-1][0]}'s), not {ev.chips}")
        s.bids.append((player, ev.chips))
        self._note("bid", f"{player} bids {ev.chips} for the widow", player=player, chips=ev.chips)

    def _on_claim(self, s: _State, ev: Claim) -> None:
        self._need_phase(s, s.phase == "claims", "a claim")
        player = self._player(s, ev.player)
        for card in ev.cards:
            self._available(s, player, card)
        claimed = s.claims.get(player, set()) | set(ev.cards)
        s.variant.check_claim(claimed)
        if len(claimed) > s.hand_size[player]:
            raise TooManyCards(f"{player}'s hand holds {s.hand_size[player]} cards, not {len(claimed)}")
        s.claims[player] = claimed
        for card in ev.cards:
            s.holder[card] = player
        shown = " ".join(str(c) for c in ev.cards)
        self._note("claim", f"{player} claims {shown}", player=player, cards=tuple(str(c) for c in ev.cards))

    def _on_discard(self, s: _State, ev: Discard) -> None:
        self._need_phase(s, s.phase == "run", "laying the Joker aside")
        player = self._player(s, ev.player)
        if list(ev.cards) != [JOKER] or not s.variant.jokers:
            raise BadCombination("only an unshown Bonanza Joker is laid aside (cards: [\"JK\"])")
        self._available(s, player, JOKER)
        if s.cards_left(player) < 1:
            raise TooManyCards(f"{player} has no card left")
        s.dead.add(JOKER)
        s.holder[JOKER] = player
        s.joker_out[player] = 1
        self._note("discard", f"{player} lays the Joker aside", player=player)
        if s.cards_left(player) == 0:
            self._go_out(s, player)

    def _check_show(self, s: _State, player: str, cards: tuple[Card, ...]) -> None:
        """What the call (or poker) asks for, and no more than the hand can hold."""
        s.variant.check_show(s.current_call or "poker", cards)
        if s.phase != "showdown" and len(cards) > s.cards_left(player):
            raise TooManyCards(f"{player} has {s.cards_left(player)} cards left, not {len(cards)}")

    def _on_show(self, s: _State, ev: Show) -> None:
        self._need_phase(s, s.phase in ("calls", "poker", "showdown"), "a show")
        player = self._player(s, ev.player)
        if player in s.folded:
            raise OutOfTurn(f"{player} folded and may not show")
        if player in s.shows:
            raise OutOfTurn(f"{player} has already shown here (one show per player)")
        if s.phase == "showdown":
            for card in ev.cards:
                self._in_pack(s, card)
                for other, theirs in s.shows.items():
                    if card in theirs:
                        raise CardUnavailable(f"{card} was already dealt to {other} in the showdown")
        else:
            for card in ev.cards:
                self._available(s, player, card)
        self._check_show(s, player, ev.cards)
        s.shows[player] = ev.cards
        if s.phase != "showdown":
            for card in ev.cards:
                s.holder[card] = player
            if JOKER in ev.cards:
                s.dead.add(JOKER)
                s.joker_out[player] = 1
        shown = " ".join(str(c) for c in ev.cards)
        self._note("show", f"{player} shows {shown}", player=player, cards=tuple(str(c) for c in ev.cards))

    def _on_bet(self, s: _State, ev: Bet) -> None:
        section = s.betting_section
        self._need_phase(s, section is not None, "a bet")
        assert section is not None
        player = self._player(s, ev.player)
        if player in s.folded:
            raise OutOfTurn(f"{player} folded and may not bet")
        s.bets[player] = s.bets.get(player, 0) + ev.chips
        self._move(ev.chips, player, section, "bet")
        self._note("bet", f"{player} bets {ev.chips}", player=player, chips=ev.chips, section=section)

    def _on_fold(self, s: _State, ev: Fold) -> None:
        self._need_phase(s, s.betting_section is not None, "a fold")
        player = self._player(s, ev.player)
        if player in s.folded:
            raise OutOfTurn(f"{player} has already folded")
        if player in s.shows:
            raise OutOfTurn(f"{player} has shown his hand and cannot fold now")
        s.folded.add(player)
        self._note("fold", f"{player} folds", player=player)

    def _on_next(self, s: _State, ev: Next) -> None:
        self._need_phase(s, s.phase in ("claims", "calls", "poker", "showdown"), "closing a phase (next)")
        self._close_phase(s)

    def _on_showdown(self, s: _State, ev: Showdown) -> None:
        self._need_phase(s, s.phase in ("setup", "between"), "the showdown")
        section = s.variant.poker_section
        for name in s.variant.sections:
            if name != section:
                self._move(s.board[name], name, section, "showdown")
        s.phase = "showdown"
        s.shows, s.bets, s.folded = {}, {}, set()
        s.hand_size = {}
        self._note("showdown", f"Showdown: {s.board[section]} chips go to {section} for the best hand", section=section)

    def _on_play(self, s: _State, ev: Play) -> None:
        self._need_phase(s, s.phase == "run", "a play")
        player, card = self._player(s, ev.player), ev.card
        self._available(s, player, card)  # a shown or laid-aside Joker is refused as dead
        if card.is_joker:
            raise NotNextCard("the Joker is not played in the run: its holder lays it aside (discard)")
        if card in s.passed_over:
            exc = Withheld(f"{player} plays {card}, which was passed over as a stop: refused")
            exc.flag = {"kind": "withheld", "players": [player], "cards": [str(card)]}
            raise exc
        if s.cards_left(player) < 1:
            raise TooManyCards(f"{player} has played every card of his hand")
        if s.suit is not None and card == s.expected:
            opening = False
        else:
            self._check_opening(s, player, card)
            opening = True
        # accepted from here on
        for op_player, op_card in s.openings:
            if op_player == player and op_card.suit == card.suit and card.value < op_card.value:
                self._flags.append(
                    {"n": self._n, "line": self._line, "kind": "not-lowest", "players": [player], "cards": [str(op_card), str(card)]}
                )
        if opening:
            if s.suit is not None:  # the stop becomes known now: the expected card was passed over
                self._stop(s, passed_over=s.expected)
            s.openings.append((player, card))
        s.suit, s.expected = card.suit, card.next_higher()
        s.stop_player = s.turn = s.ended_suit = None
        if s.passed:
            s.passed = set()
        s.fallback = False
        s.last_player, s.last_card = player, card
        s.played[player].append(card)
        s.played_set.add(card)
        if s.streak_player == player:
            s.streak.append(card)
        else:
            s.streak_player, s.streak = player, [card]
        code = card.code
        self._note("play", f"{player} {'leads' if opening else 'plays'} {code}", player=player, card=code, opening=opening)
        self._pay_for_play(s, player)
        if s.cards_left(player) == 0:
            self._go_out(s, player)
        elif card.rank == "A" or s.expected in s.played_set:
            self._stop(s, passed_over=None)

    def _check_opening(self, s: _State, player: str, card: Card) -> None:
        """Raise unless ``player`` may open a run with ``card`` now."""
        v = s.variant
        ended: str | None
        # While a run is under way, its last player may end it by reopening (where anyone may reopen, anyone in the reopen's suits).
        if s.suit is not None:
            stopper, ended = s.last_player, s.suit
            if player != stopper and not (v.reopen_turns == "anyone" and _fits(v, card.suit, ended)):
                who = f"a reopen in {_rule(v)} ({stopper} in any suit)" if v.reopen_turns == "anyone" else f"{stopper} reopens"
                raise NotNextCard(f"{player} cannot play {card}: the run expects {s.expected}, or {who}")
            fallback = False
        else:
            stopper, ended, fallback = s.stop_player, s.ended_suit, s.fallback
            if ended is None:  # the lead
                if player != stopper:
                    raise OutOfTurn(f"{stopper} leads, not {player}")
                return
        assert stopper is not None and ended is not None
        fits = _fits(v, card.suit, ended)
        if v.reopen_turns == "anyone":
            if player in s.passed and not (fallback and player == stopper):
                raise OutOfTurn(f"{player} passed and may not reopen until the next card is played")
            if player == stopper:
                return  # the stop player may always open, in any suit as the last resort
            if fallback:
                raise OutOfTurn(f"everybody passed: {stopper} opens now")
        elif v.reopen_turns == "rotate" or s.suit is None:
            turn = s.turn or stopper
            if player != turn:
                raise OutOfTurn(f"{turn} must reopen, not {player}")
        if not fits:
            raise NotNextCard(f"{player} cannot reopen with {card}: after {ended} stopped, the run reopens in {_rule(v)}")

    def _on_pass(self, s: _State, ev: Pass) -> None:
        self._need_phase(s, s.phase == "run", "a pass")
        player = self._player(s, ev.player)
        v = s.variant
        if s.suit is not None:
            if player != s.last_player:
                raise OutOfTurn(f"{player} cannot pass: the run expects {s.expected}")
            self._stop(s, passed_over=s.expected)
        if s.ended_suit is None:
            raise OutOfTurn(f"{s.stop_player} leads: there is nothing to pass")
        turn = s.turn or s.stop_player
        assert turn is not None
        if player != turn:
            raise OutOfTurn(f"it is {turn}'s turn to reopen, not {player}'s")
        if s.fallback:
            raise OutOfTurn(f"everybody else passed: {player} opens with his lowest card of any suit")
        self._note("pass", f"{player} cannot reopen", player=player)
        if v.reopen_turns == "stop-player":
            self._end_hand(s, f"{player} cannot reopen, nobody takes {v.centre}")
            return
        if v.pass_penalty:
            self._move(v.pass_penalty, player, v.centre, "pass")
            self._note("penalty", f"{player} pays {v.pass_penalty} to {v.centre}", player=player, chips=v.pass_penalty, section=v.centre)
        s.passed.add(player)
        s.turn = s.left_of(player)
        if s.turn == s.stop_player:
            if v.reopen_turns == "rotate":
                self._end_hand(s, f"nobody can reopen, nobody takes {v.centre}")
            else:
                s.fallback = True

    # ------------------------------------------------------- hand mechanics

    def _stop(self, s: _State, *, passed_over: Card | None) -> None:
        """The run of the current suit has ended at its last card."""
        assert s.last_card is not None and s.last_player is not None
        s.stops.append(s.last_card)
        if passed_over is not None:
            s.passed_over.add(passed_over)
        s.ended_suit, s.stop_player, s.turn = s.suit, s.last_player, s.last_player
        s.suit = s.expected = None
        s.passed, s.fallback = set(), False

    def _pay_for_play(self, s: _State, player: str) -> None:
        """``player`` takes what the card he just played wins (:meth:`Variant.play_wins`)."""
        for section, why in s.variant.play_wins(s.streak, s.run_won):
            s.run_won.add(section)
            self._take(player, section, why)

    def _go_out(self, s: _State, player: str) -> None:
        v = s.variant
        self._note("out", f"{player} is out!", player=player)
        self._take(player, v.centre, "out")
        s.out = player
        if v.options["card_penalty"]:
            for other in s.players:
                left = s.cards_left(other) if other != player else 0
                if left > 0:
                    self._move(left, other, player, "penalty")
                    s.settlement.append({"from": other, "to": player, "chips": left})
                    self._note("penalty", f"{other} pays {player} {left} for cards left", player=other, to=player, chips=left)
        self._end_hand(s, f"{player} went out")

    def _end_hand(self, s: _State, why: str) -> None:
        s.phase = "between"
        s.stop_player = s.turn = None
        self._note("end", f"The hand ends: {why}", reason=why)

    def _close_phase(self, s: _State) -> None:
        """Settle the open claims, call or poker and move on (``next``)."""
        v = s.variant
        if s.phase == "claims":
            self._settle_claims(s)
            s.phase = "poker"
        elif s.phase == "calls":
            call = s.current_call
            assert call is not None
            self._settle_call(s, call)
            s.call_index += 1
            s.shows, s.bets, s.folded = {}, {}, set()
            if s.call_index >= len(v.calls):
                self._begin_run(s)
        elif s.phase == "poker":
            self._settle_poker(s, v.poker_section)
            self._begin_run(s)
        elif s.phase == "showdown":
            self._settle_poker(s, v.poker_section)
            s.phase = "over"
            self._note("over", "The game is over")

    def _begin_run(self, s: _State) -> None:
        v = s.variant
        assert s.dealer is not None
        s.phase = "run"
        s.shows, s.bets, s.folded = {}, {}, set()
        leader = s.dealer if v.leader == "dealer" else s.left_of(s.dealer)
        s.stop_player = s.turn = leader
        s.ended_suit = None
        self._note("run", f"The run begins: {leader} leads", player=leader)

    def _settle_claims(self, s: _State) -> None:
        for section, winners, why in s.variant.claim_wins(s.claims, s.players):
            self._split(winners, section, why)

    def _settle_call(self, s: _State, call: str) -> None:
        if call == s.variant.poker_section:
            self._settle_poker(s, call)
            return
        if not s.shows:
            self._note("call", f"Nobody answers the {call} call", section=call)
            return
        self._split(s.variant.call_winners(call, s.shows), call, call)

    def _settle_poker(self, s: _State, section: str) -> None:
        in_play = [p for p in s.players if p not in s.folded]
        if len(in_play) == 1 and s.phase != "showdown":
            self._take(in_play[0], section, "poker (all others folded)")
            return
        hands: dict[str, PokerHand] = {p: rank_hand(s.shows[p]) for p in in_play if p in s.shows}
        if not hands:
            self._note("call", f"Nobody shows: the chips stay on {section}", section=section)
            return
        best = max(hands.values())
        winners = [p for p, h in hands.items() if h == best]
        self._note("poker", f"Best hand: {best}", players=tuple(winners), hand=best.label)
        self._split(winners, section, "poker")

    _HANDLERS: ClassVar[dict[type[Event], Callable[..., None]]] = {
        Deal: _on_deal,
        Widow: _on_widow,
        Bid: _on_bid,
        Claim: _on_claim,
        Discard: _on_discard,
        Show: _on_show,
        Bet: _on_bet,
        Fold: _on_fold,
        Next: _on_next,
        Play: _on_play,
        Pass: _on_pass,
        Showdown: _on_showdown,
    }


def final_standings(balances: Mapping[str, int], start: int) -> dict[str, list[dict[str, Any]]]:
    """The end of the game: each player's place and chips against the ``start`` he had, and how
    the table settles up, every player below his start paying those above it.

    Places are shared on equal chips (1, 1, 3). The largest debt meets the largest gain first, so a
    table of n players settles in at most n - 1 payments; chips left on the board (a showdown that
    nobody answered) are nobody's gain, so the losers then pay only what the winners won.

    >>> final = final_standings({"Ann": 130, "Bob": 90, "Cy": 80, "Dee": 100}, 100)
    >>> [(p["place"], p["name"], p["net"]) for p in final["standings"]]
    [(1, 'Ann', 30), (2, 'Dee', 0), (3, 'Bob', -10), (4, 'Cy', -20)]
    >>> final["settlement"]
    [{'from': 'Cy', 'to': 'Ann', 'chips': 20}, {'from': 'Bob', 'to': 'Ann', 'chips': 10}]
    """
    order = sorted(balances, key=lambda p: -balances[p])  # stable: seating order among equals
    standings = [
        {"place": 1 + sum(balances[q] > balances[p] for q in order), "name": p,
         "balance": balances[p], "net": balances[p] - start}
        for p in order
    ]
    gains = [(p, balances[p] - start) for p in order if balances[p] > start]
    debts = [(p, start - balances[p]) for p in reversed(order) if balances[p] < start]
    settlement: list[dict[str, Any]] = []
    while gains and debts:
        gains.sort(key=lambda g: -g[1])
        debts.sort(key=lambda d: -d[1])
        (winner, gain), (loser, debt) = gains[0], debts[0]
        chips = min(gain, debt)
        settlement.append({"from": loser, "to": winner, "chips": chips})
        gains[0] = (winner, gain - chips)
        debts[0] = (loser, debt - chips)
        gains = [g for g in gains if g[1]]
        debts = [d for d in debts if d[1]]
    return {"standings": standings, "settlement": settlement}


def _fits(v: Variant, suit: str, ended: str) -> bool:
    """Whether the run may reopen in ``suit`` after ``ended`` stopped, by the ``reopen`` option."""
    if v.options["reopen"] == "other-colour":
        return (suit in RED_SUITS) != (ended in RED_SUITS)
    return suit != ended


def _rule(v: Variant) -> str:
    return "a suit of the other colour" if v.options["reopen"] == "other-colour" else "another suit"


def replay(lines: Iterable[str]) -> Game:
    """Apply record lines in order as ``companion replay`` does (blank lines skipped)."""
    game = Game()
    for number, text in enumerate(lines, start=1):
        if text.strip():
            game.push_line(text, line=number)
    return game
