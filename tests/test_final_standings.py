"""The end of a game: places, and a settlement that pays every winner from the losers, no more."""

from __future__ import annotations

from collections import Counter

from hypothesis import assume, given
from hypothesis import strategies as st

from companion.app.simulate import SimulatedTable
from companion.rules.game import Game, final_standings

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal", "Ida"]


@given(st.lists(st.integers(0, 300), min_size=2, max_size=9), st.booleans(), st.integers(0, 5))
def test_the_settlement_pays_each_winner_his_gain_from_the_losers(chips: list[int], exact: bool, more: int) -> None:
    """Chips are conserved: the players started with ``start`` each and hold it all, or all but
    what is left on the board."""
    table = dict(zip(NAMES, chips))
    n = len(table)
    left_on_board = 0 if exact else -sum(chips) % n + n * more
    assume(exact or left_on_board)
    start = (sum(chips) + left_on_board) // n
    if exact:
        table[NAMES[n - 1]] += -sum(chips) % n  # the last player's chips make the sum a whole start each
        start = sum(table.values()) // n
    final = final_standings(table, start)
    paid: Counter[str] = Counter()
    received: Counter[str] = Counter()
    for payment in final["settlement"]:
        assert payment["chips"] > 0 and table[payment["from"]] < start < table[payment["to"]]
        paid[payment["from"]] += payment["chips"]
        received[payment["to"]] += payment["chips"]
    for name, held in table.items():
        assert paid[name] <= max(0, start - held)
    gains = {n: c - start for n, c in table.items() if c > start}
    if left_on_board == 0:  # every gain is paid in full
        assert dict(received) == gains
    assert len(final["settlement"]) <= max(0, len(table) - 1)
    places = [p["place"] for p in final["standings"]]
    assert places == sorted(places) and places[0] == 1
    assert [p["balance"] for p in final["standings"]] == sorted(table.values(), reverse=True)


def test_equal_chips_share_a_place() -> None:
    final = final_standings({"Ann": 90, "Bob": 120, "Cy": 120, "Dee": 70}, 100)
    assert [(p["place"], p["name"]) for p in final["standings"]] == [(1, "Bob"), (1, "Cy"), (3, "Ann"), (4, "Dee")]


def test_the_view_has_the_final_standings_only_once_the_showdown_ends_the_game() -> None:
    sim = SimulatedTable("tripoley", ["Ann", "Bob", "Cy"], seed=5)
    game = Game()
    for event in sim.play(hands=1):
        game.push(event)
    assert game.view()["final"] is None and not game.view()["over"]
    for event in sim.showdown():
        game.push(event)
    view = game.view()
    assert view["over"] and view["final"] == final_standings(game.balances, 100)
    assert sum(p["net"] for p in view["final"]["standings"]) == 0
