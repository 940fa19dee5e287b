"""The demo table's layout: every card a player lays lies in that player's own zone."""

from pathlib import Path

import pytest

from companion.demo import DemoTable
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
