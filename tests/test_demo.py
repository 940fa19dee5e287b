"""The demo table's layout: every card a player lays lies in that player's own zone."""

from pathlib import Path
from typing import Any

import pytest

from companion.app.demo import DemoTable
from companion.table import Table


@pytest.mark.parametrize("players", [("Ann", "Bob", "Cy"), ("Ann", "Bob", "Cy", "Dee")])
def test_a_players_first_sixteen_cards_lie_in_his_zone(tmp_path: Path, players: tuple[str, ...]) -> None:
    """A Michigan hand deals at most 13 cards to a player in a game of three or more;
    rows nearer the middle are shorter, since a seat's zone narrows there."""
    with Table.open(tmp_path / "demo.sqlite") as table:
        demo = DemoTable(table, players=players, seed=1, speed=0, detect=lambda frame: [])
        for player in players:
            zones = [demo.zones.zone_at(demo._spot(player, k)[0]) for k in range(16)]
            assert zones == [player] * 16


def _demo(table: Table, seed: int) -> DemoTable:
    """A demo whose camera sees nothing: the referee enters every card, fast."""
    return DemoTable(table, variant="bonanza", players=("Ann", "Bob", "Cy"), seed=seed, speed=0, size=(320, 180),
                     hold_frames=1, detect=lambda frame: [])


def _stop_once_stored(table: Table, demo: DemoTable, events: int) -> None:
    """Stop ``demo`` as soon as ``table`` has stored ``events`` events, wherever in a hand that falls."""
    def listener(view: dict[str, Any]) -> None:
        if len(table.store) >= events:
            demo.stop()

    table.add_listener(listener)


def _truth(seed: int, hands: int) -> dict[str, int]:
    """The balances of the demo's game: ``hands`` hands and the showdown that ends it."""
    from companion.app.simulate import SimulatedTable

    sim = SimulatedTable("bonanza", ("Ann", "Bob", "Cy"), seed=seed)
    for _ in sim.play(hands=hands, showdown=True):
        pass
    return sim.game.balances


@pytest.mark.parametrize("stop_at", [1, 2, 9, 40])
def test_a_stopped_demo_goes_on_from_its_stored_game(tmp_path: Path, stop_at: int) -> None:
    with Table.open(tmp_path / "demo.sqlite") as table:
        demo = _demo(table, seed=7)
        _stop_once_stored(table, demo, stop_at)
        demo.play(hands=2)
        stored = table.export_jsonl()
    with Table.open(tmp_path / "demo.sqlite") as table:
        demo = _demo(table, seed=7)
        demo.play(hands=2)  # before: replayed the simulation from its start onto the game, and died of WrongPhase
        assert table.export_jsonl().startswith(stored)
        assert table.view()["hands"] == 2 and table.view()["balances"] == _truth(7, 2)


def test_a_demo_says_why_it_cannot_go_on_with_another_shuffle(tmp_path: Path) -> None:
    from companion.app.demo import CannotResume

    with Table.open(tmp_path / "demo.sqlite") as table:
        demo = _demo(table, seed=7)
        _stop_once_stored(table, demo, 20)
        demo.play(hands=1)
        before = table.export_jsonl()
        with pytest.raises(CannotResume, match="shuffle"):
            _demo(table, seed=8).play(hands=1)
        assert table.export_jsonl() == before


def test_demo_data_keeps_its_shuffle_for_the_next_run(tmp_path: Path) -> None:
    from companion.app.demo import CannotResume, _shuffle

    seed = _shuffle(tmp_path, None, resuming=False)
    assert _shuffle(tmp_path, None, resuming=True) == seed == _shuffle(tmp_path, seed, resuming=True)
    with pytest.raises(CannotResume, match=f"shuffle {seed}, not {seed + 1}"):
        _shuffle(tmp_path, seed + 1, resuming=True)
    (tmp_path / "demo.json").unlink()
    with pytest.raises(CannotResume, match="does not say which shuffle"):
        _shuffle(tmp_path, None, resuming=True)
