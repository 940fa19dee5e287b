"""The config file: defaults, the example, errors that name the key, saving zones."""

from pathlib import Path

import pytest

from companion.app.config import Config, ConfigError
from companion.app.serve import LatestFrame
from vision.zones import ZoneMap
from web.camera import ZonesNotSaved

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
    assert not config.voice.enabled  # silent unless asked
    assert (config.voice.language, config.voice.rate) == ("en", 160)


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
        ("[voice]\nenabled = 'yes'", "voice.enabled"),
        ("[voice]\nlanguage = 'es'", "voice.language must be one of en, ko, fr, de"),
        ("[voice]\nrate = 1000", "voice.rate"),
        ("[voice]\nrate = 160.5", "voice.rate"),
        ("[voice]\nvolume = 3", "voice.volume is not a known key"),
        ("voice = true", "[voice] must be a table"),
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


def test_saved_zones_go_to_the_data_folder_and_take_the_place_of_the_config_zones(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = (f'# mine\ndata_dir = "{tmp_path / "data"}"\n[web]\nport = 9000\n\n'
            "[zones]  # drawn by hand\nOld = [[0, 0], [10, 0], [10, 10]]\n\n[game]\nchips = 50\n")
    path.write_text(text)
    config = Config.load(path)
    assert config.zones == {"Old": [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]]}
    config.save_zones({"Ann": [[0, 0], [100, 0], [100, 50]], "Bob Smith": [[0, 60], [100, 60], [50, 120]]})
    config.save_zones({"Ann": [[0, 0], [100, 0], [100, 50]], "Bob Smith": [[0, 60], [100, 60], [50, 120]]})
    again = Config.load(path)
    assert again.zones == {"Ann": [[0.0, 0.0], [100.0, 0.0], [100.0, 50.0]], "Bob Smith": [[0.0, 60.0], [100.0, 60.0], [50.0, 120.0]]}
    assert again.web.port == 9000 and again.game.chips == 50
    assert path.read_text() == text  # the config (read-only to the service on a Pi) is never rewritten
    assert (tmp_path / "data" / "zones.toml").read_text().count("\n[zones]\n") == 1


def test_a_zone_save_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    config = Config.from_dict({"data_dir": str(tmp_path / "file" / "data")})
    view = LatestFrame(ZoneMap.from_dict({"Ann": [[0, 0], [640, 0], [640, 240]]}), save_zones=config.save_zones)
    with pytest.raises(ZonesNotSaved, match="could not be saved"):
        view.set_zones({"Bob": [[0, 0], [640, 0], [640, 480]]})
    assert list(view.zones()) == ["Ann"]


def test_broken_saved_zones_are_named(tmp_path: Path) -> None:
    config = Config.from_dict({"data_dir": str(tmp_path)})
    config.zones_path.write_text('[zones]\nAnn = [[0, 0], [1, 1]]\n')
    path = tmp_path / "config.toml"
    path.write_text(f'data_dir = "{tmp_path}"\n')
    with pytest.raises(ConfigError, match=r"zones\.toml.*delete it"):
        Config.load(path)
