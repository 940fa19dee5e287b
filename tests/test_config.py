"""The config file: defaults, the example, errors that name the key, saving zones."""

from pathlib import Path

import pytest

from companion.config import Config, ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_empty_file_is_every_default(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("")
    config = Config.load(path)
    assert config.camera.size == (1280, 720)
    assert config.game.variant == "michigan-1939"
    assert config.web.port == 8080
    assert config.camera.source_spec == "picamera"
    assert config.camera.read_again


def test_the_example_config_loads() -> None:
    config = Config.load(ROOT / "deploy" / "config.example.toml")
    assert config.camera.read_again
    assert not Config.from_dict({"camera": {"read_again": False}}).camera.read_again
    assert config.camera.skip_still
    assert not Config.from_dict({"camera": {"skip_still": False}}).camera.skip_still
    assert config.data_dir == Path("/var/lib/table-companion")
    assert config.web.host == "0.0.0.0"
    assert len(config.board.led_pins) == 10


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("colour = 'red'", "config.colour"),
        ("[camera]\nfps = 0", "camera.fps"),
        ("[camera]\nsize = [1280]", "camera.size"),
        ("[camera]\nsource = true", "camera.source"),
        ("[camera]\nread_again = 'yes'", "camera.read_again"),
        ("[camera]\nskip_still = 1", "camera.skip_still"),
        ("[game]\nvariant = 'poker'", "unknown variant"),
        ("[game]\nplayers = ['Ann']", "2 to 9 players"),
        ("[game]\nchips = 2.5", "chips"),
        ("[game.options]\nreopen = 'sideways'", "reopen"),
        ("[web]\nport = 'x'", "web.port"),
        ("[board]\nservo_pin = 99", "servo_pin"),
        ("[zones]\nAnn = [[0, 0], [1, 1]]", "Ann"),
        ("camera = 3", "[camera] must be a table"),
        ("[camera\n", "not valid TOML"),
    ],
)
def test_a_wrong_key_or_value_is_named(tmp_path: Path, text: str, names: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=names.replace("[", r"\[").replace("]", r"\]")):
        Config.load(path)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config"):
        Config.load(tmp_path / "nope.toml")


def test_saved_zones_replace_the_zones_table_and_keep_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# mine\n[web]\nport = 9000\n\n[zones]\nOld = [[0, 0], [10, 0], [10, 10]]\n\n[game]\nchips = 50\n")
    config = Config.load(path)
    config.save_zones({"Ann": [[0, 0], [100, 0], [100, 50]], "Bob Smith": [[0, 60], [100, 60], [50, 120]]})
    again = Config.load(path)
    assert again.zones == {"Ann": [[0.0, 0.0], [100.0, 0.0], [100.0, 50.0]], "Bob Smith": [[0.0, 60.0], [100.0, 60.0], [50.0, 120.0]]}
    assert again.web.port == 9000 and again.game.chips == 50
    assert path.read_text().startswith("# mine")
