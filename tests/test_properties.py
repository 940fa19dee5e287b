"""Properties of the engine over random simulated games (hypothesis).

Every variant, 2 to 9 players, real shuffled hands played legally by
:class:`companion.app.simulate.SimulatedTable`: chips are conserved after every
event, ``pop`` undoes any ``push`` exactly, junk is refused without a trace,
and a record survives the stores and replays to the same summary.
"""

from __future__ import annotations

import io
import json
import random
import tempfile
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.app.cli import main
from companion.app.simulate import SimulatedTable
from companion.rules.cards import standard_deck
from companion.rules.game import Game, replay
from companion.rules.variants import variant_class
from companion.store import export_jsonl, open_store

pytestmark = pytest.mark.slow  # hundreds of simulated games

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy")
VARIANTS = ("michigan-1939", "bonanza", "tripoley")


def _allowed(spec: dict[str, Any]) -> bool:
    """No option chosen against what the variant's rules fix."""
    return all(spec["options"].get(k, v) == v for k, (v, _) in variant_class(spec["variant"]).fixed_options.items())


tables: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {
        "variant": st.sampled_from(VARIANTS),
        "players": st.integers(min_value=2, max_value=9),
        "seed": st.integers(min_value=0, max_value=2**32 - 1),
        "hands": st.integers(min_value=1, max_value=3),
        "showdown": st.booleans(),
        "options": st.fixed_dictionaries(
            {},
            optional={
                "widow_position": st.sampled_from(["last", "first"]),
                "card_penalty": st.booleans(),
                "reopen": st.sampled_from(["other-suit", "other-colour"]),
            },
        ),
    }
).filter(_allowed)


def simulate(spec: dict[str, Any]) -> tuple[SimulatedTable, list[dict[str, Any]]]:
    """The simulated hands, then (when ``spec["showdown"]``) the end-of-game showdown."""
    table = SimulatedTable(
        spec["variant"], NAMES[: spec["players"]], chips=50, seed=spec["seed"], options=spec["options"] or None
    )
    events = list(table.play(hands=spec["hands"]))
    if spec["showdown"]:
        rnd = random.Random(spec["seed"])
        deck = standard_deck(jokers=table.variant.jokers)
        rnd.shuffle(deck)
        ending: list[dict[str, Any]] = [{"type": "showdown"}]
        for player in rnd.sample(table.players, k=rnd.randint(0, len(table.players))):
            hand, deck = deck[:5], deck[5:]
            ending.append({"type": "show", "player": player, "cards": [str(c) for c in hand]})
        ending.append({"type": "next"})
        for event in ending:
            table.game.push(event)
        assert table.game.phase == "over"
        events += ending
    return table, events


def started(spec: dict[str, Any]) -> tuple[Game, list[dict[str, Any]]]:
    """A game that has taken the simulation's first event (the set-up), and all the events."""
    _, events = simulate(spec)
    game = Game()
    game.push(events[0])
    return game, events


def total(game: Game) -> int:
    return sum(game.balances.values()) + sum(game.board.values())


@settings(max_examples=60, deadline=None)
@given(tables)
def test_simulated_games_conserve_chips_after_every_event(spec: dict[str, Any]) -> None:
    _, events = simulate(spec)
    expected = 50 * spec["players"]
    game = Game()
    for event in events:
        game.push(event)
        assert total(game) == expected, event
        json.dumps(game.view(), allow_nan=False)  # the scoreboard's view stays JSON
    assert game.state.hands == spec["hands"]
    assert game.phase == ("over" if spec["showdown"] else "between")
    assert all(m.chips > 0 for m in game.movements)
    ending = events[max(i for i, e in enumerate(events) if e["type"] == "deal") :]
    if spec["showdown"] and any(e["type"] == "show" for e in ending[ending.index({"type": "showdown"}) :]):
        assert sum(game.board.values()) < spec["players"]  # all won but the odd chips of a split


@settings(max_examples=40, deadline=None)
@given(tables, st.randoms(use_true_random=False))
def test_pop_after_any_push_restores_the_view(spec: dict[str, Any], rnd: random.Random) -> None:
    game, events = started(spec)
    for event in events[1:]:
        before = game.view()
        game.push(event)
        if rnd.random() < 0.25:
            assert game.pop().to_dict()["type"] == event["type"]
            assert game.view() == before
            game.push(event)
    assert game.summary() == replay([json.dumps(e) for e in events]).summary()


def accepted(game: Game, event: dict[str, Any]) -> bool:
    """Whether the game takes ``event``; taken back at once if it does."""
    try:
        game.push(event)
    except ValueError:
        return False
    game.pop()
    return True


@settings(max_examples=30, deadline=None)
@given(tables, st.randoms(use_true_random=False))
def test_legal_plays_say_which_run_cards_the_referee_accepts(spec: dict[str, Any], rnd: random.Random) -> None:
    """``settle`` (the one candidate ``legal_plays`` allows) against ``push`` itself, in every run position."""
    game, events = started(spec)
    deck = standard_deck(jokers=game.variant.jokers)
    for event in events[1:]:
        if game.phase == "run":
            for player in game.players:
                for card in rnd.sample(deck, 6):
                    move = ({"type": "discard", "player": player, "cards": ["JK"]} if card.is_joker
                            else {"type": "play", "player": player, "card": str(card)})
                    assert (game.settle(player, [card]) == card) == accepted(game, move), (move, game.legal_plays())
        game.push(event)


def junk_for(game: Game, rnd: random.Random) -> dict[str, Any]:
    """An event that cannot be right now: malformed, a stranger, a dead card, or out of phase."""
    s = game.state
    player = rnd.choice(s.players)
    played = [str(c) for cs in s.played.values() for c in cs]
    by_phase: dict[str, list[dict[str, Any]]] = {
        "setup": [{"type": "next"}, {"type": "widow", "action": "keep"}, {"type": "play", "player": player, "card": "2S"}],
        "widow": [{"type": "next"}, {"type": "bet", "player": player, "chips": 1}, {"type": "deal", "dealer": player}],
        "claims": [{"type": "bid", "player": player, "chips": 1}, {"type": "pass", "player": player}, {"type": "showdown"}],
        "calls": [{"type": "widow", "action": "sell"}, {"type": "claim", "player": player, "cards": ["AH"]}],
        "poker": [{"type": "discard", "player": player, "cards": ["JK"]}, {"type": "deal", "dealer": player}],
        "run": [{"type": "next"}, {"type": "bet", "player": player, "chips": 2}, {"type": "showdown"}],
        "between": [{"type": "next"}, {"type": "play", "player": player, "card": "2S"}, {"type": "pass", "player": player}],
        "showdown": [{"type": "deal", "dealer": player}, {"type": "bet", "player": player, "chips": 1}, {"type": "showdown"}],
        "over": [{"type": "next"}, {"type": "deal", "dealer": player},
                 {"type": "show", "player": player, "cards": ["2S", "3S", "4S", "5S", "7D"]}],
    }
    wrong_phase = by_phase[s.phase]
    candidates: list[dict[str, Any]] = [
        *wrong_phase,
        {"type": "play", "player": "Zed", "card": "2S"},
        {"type": "bet", "player": "Zed", "chips": 1},
        {"type": "fold", "player": "Nobody"},
        {"type": "deal", "dealer": "Zed"},
        {"type": "bet", "player": player, "chips": rnd.choice([0, -3, 2.0, "3", True, None, 10**12, [1]])},
        {"type": "bid", "player": player, "chips": rnd.choice([0, 2.5, "1", False])},
        {"type": "play", "player": player, "card": rnd.choice(["1S", "XX", "", 7, True, None, ["QS"], {"c": 1}])},
        {"type": "show", "player": player, "cards": rnd.choice([[], "QS", ["QS", "QS"], ["ZZ"], [2.0], None])},
        {"type": "claim", "player": player, "cards": [True]},
        {"type": rnd.choice(["shuffle", "", 3, None, "Play"]), "player": player},
        {"type": "widow", "action": rnd.choice(["swap", "", 1, None])},
        {"type": "game", "variant": "bonanza", "players": ["X", "Y"], "chips": 5},
    ]
    if played:
        candidates.append({"type": "play", "player": player, "card": rnd.choice(played)})
    if s.variant.jokers == 0:
        candidates.append({"type": "play", "player": player, "card": "JK"})
    return rnd.choice(candidates)


@settings(max_examples=40, deadline=None)
@given(tables, st.randoms(use_true_random=False))
def test_junk_is_refused_with_a_value_error_and_changes_nothing(spec: dict[str, Any], rnd: random.Random) -> None:
    game, events = started(spec)
    for event in events[1:]:
        for _ in range(rnd.randint(0, 2)):
            junk = junk_for(game, rnd)
            before, applied = game.view(), game.events
            try:
                game.push(junk)
            except ValueError:
                pass
            else:
                raise AssertionError(f"accepted junk {junk} in phase {before['phase']}")
            assert game.view() == before, junk
            assert game.events == applied
        game.push(event)


@settings(max_examples=30, deadline=None)
@given(tables, st.sampled_from([".sqlite", ".jsonl"]))
def test_records_round_trip_through_the_stores_and_replay_the_same(spec: dict[str, Any], suffix: str) -> None:
    table, events = simulate(spec)
    expected = table.game.summary()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"game{suffix}"
        with open_store(path) as store:
            store.replace(events[:-2])
            for event in events[-2:]:
                store.append(event)
        with open_store(path) as store:
            stored = store.events()
            record = Path(folder) / "export.jsonl"
            export_jsonl(store, record)
        assert stored == events
        assert replay([json.dumps(e) for e in stored]).summary() == expected
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["replay", str(record), "--json"]) == 0
        assert json.loads(out.getvalue()) == expected


ALWAYS_JUNK = (
    "not json",
    "[]",
    '{"type": "shuffle"}',
    '{"type": "play", "player": "Zed", "card": "2S"}',
    '{"type": "bet", "player": "Ann", "chips": 2.0}',
    '{"type": "bet", "player": "Ann", "chips": "3"}',
    '{"type": "bid", "player": "Ann", "chips": true}',
    '{"type": "show", "player": "Ann", "cards": ["QS", "XX"]}',
    '{"type": "game", "variant": "tripoley", "players": ["X", "Y"], "chips": 3}',
)


@settings(max_examples=30, deadline=None)
@given(tables, st.integers(min_value=0, max_value=2**32 - 1))
def test_junk_and_blank_lines_in_a_record_are_listed_by_line_and_change_nothing(spec: dict[str, Any], seed: int) -> None:
    rnd = random.Random(seed)
    _, events = simulate(spec)
    clean = [json.dumps(e) for e in events]
    lines, junk_lines = [clean[0]], []
    for line in clean[1:]:
        while rnd.random() < 0.1:
            extra = rnd.choice(("", "   ", *ALWAYS_JUNK))
            lines.append(extra)
            if extra.strip():
                junk_lines.append(len(lines))
        lines.append(line)
    expected = replay(clean).summary()
    got = replay(lines).summary()
    assert [r["line"] for r in got["rejected"]] == junk_lines
    assert {k: v for k, v in got.items() if k not in ("rejected", "flags")} == {
        k: v for k, v in expected.items() if k not in ("rejected", "flags")
    }
    assert [{k: v for k, v in f.items() if k != "line"} for f in got["flags"]] == [
        {k: v for k, v in f.items() if k != "line"} for f in expected["flags"]
    ]
