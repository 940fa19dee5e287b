"""The one configuration file (TOML) of a table, checked once at start.

Every key has a default (``deploy/config.example.toml`` documents them all),
so an empty file is a valid configuration. A wrong key or value stops the
start with a message that names it, rather than surfacing later at the table.

>>> config = Config.from_dict({"game": {"variant": "bonanza", "players": ["Ann", "Bob"]}})
>>> config.game.variant, config.camera.source, config.web.port
('bonanza', 'picamera2', 8080)
>>> Config.from_dict({"camera": {"fps": 0}})
Traceback (most recent call last):
...
companion.app.config.ConfigError: camera.fps must be a number above 0 and at most 60, not 0
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.rules.events import parse_event
from companion.store import write_whole
from hardware.config import BoardConfig
from vision.zones import ZoneMap
from web.config import WebConfig

DEFAULT_DATA_DIR = Path("~/.local/share/table-companion").expanduser()
ZONES_FILE = "zones.toml"


class ConfigError(ValueError):
    """A configuration key with a wrong name, type or value; the message names the key."""


def _known(table: Mapping[str, Any], name: str, keys: set[str]) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise ConfigError(f"{name}.{unknown[0]} is not a known key (known: {', '.join(sorted(keys))})")


@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from (``vision.sources.open_source``), their size and rate, whether
    the recogniser reads an unsure card again (``Recognizer(read_again=...)``), and whether a
    table that has stopped changing is read on (``vision.still.StillFrames``)."""

    source: str = "picamera2"
    size: tuple[int, int] = (1280, 720)
    fps: float = 10.0
    read_again: bool = True
    skip_still: bool = True

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CameraConfig:
        _known(d, "camera", {"source", "size", "fps", "read_again", "skip_still"})
        source = d.get("source", cls.source)
        if isinstance(source, bool) or not isinstance(source, (str, int)):
            raise ConfigError(f"camera.source must be text or a webcam number, not {source!r}")
        size = d.get("size", list(cls.size))
        if (
            not isinstance(size, list)
            or len(size) != 2
            or not all(type(v) is int and 64 <= v <= 8192 for v in size)
        ):
            raise ConfigError(f"camera.size must be [width, height] in pixels, not {size!r}")
        fps = d.get("fps", cls.fps)
        if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= 60:
            raise ConfigError(f"camera.fps must be a number above 0 and at most 60, not {fps!r}")
        read_again = d.get("read_again", cls.read_again)
        if not isinstance(read_again, bool):
            raise ConfigError(f"camera.read_again must be true or false, not {read_again!r}")
        skip_still = d.get("skip_still", cls.skip_still)
        if not isinstance(skip_still, bool):
            raise ConfigError(f"camera.skip_still must be true or false, not {skip_still!r}")
        return cls(str(source), (size[0], size[1]), float(fps), read_again, skip_still)

    @property
    def source_spec(self) -> str:
        """The name ``open_source`` takes (``picamera2`` is the apt package's name for the Pi camera)."""
        return "picamera" if self.source.lower() in ("picamera2", "picamera") else self.source


@dataclass(frozen=True)
class GameDefaults:
    """The game a fresh table sets up until the referee starts another."""

    variant: str = "michigan-1939"
    players: tuple[str, ...] = ("Ann", "Bob", "Cy")
    chips: int = 100
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GameDefaults:
        _known(d, "game", {"variant", "players", "chips", "options"})
        players, options = d.get("players", cls.players), d.get("options", {})
        made = cls(
            variant=d.get("variant", cls.variant),
            players=tuple(players) if isinstance(players, list | tuple) else players,
            chips=d.get("chips", cls.chips),
            options=dict(options) if isinstance(options, dict) else options,
        )
        try:
            parse_event(made.game_event())
        except ValueError as exc:
            raise ConfigError(f"[game]: {exc}") from None
        return made

    def game_event(self) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "game", "variant": self.variant, "players": list(self.players), "chips": self.chips}
        if self.options:
            event["options"] = dict(self.options)
        return event


VOICE_LANGUAGES = ("en", "ko", "fr", "de")
"""The pages' languages (``web.i18n.LANGUAGES``), each an espeak-ng voice of the same name."""


@dataclass(frozen=True)
class VoiceConfig:
    """Whether the companion speaks (``companion.app.voice``), in which language, and how fast.

    One language for the whole table: the pages choose theirs per tablet, the
    loudspeaker speaks to everybody. English when none is set, as the pages
    are for a browser that asks for none of theirs.
    """

    enabled: bool = False
    language: str = "en"
    rate: int = 160
    """Words per minute (espeak-ng's ``-s``; its own default is 175)."""

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> VoiceConfig:
        _known(d, "voice", {"enabled", "language", "rate"})
        enabled = d.get("enabled", cls.enabled)
        if not isinstance(enabled, bool):
            raise ConfigError(f"voice.enabled must be true or false, not {enabled!r}")
        language = d.get("language", cls.language)
        if language not in VOICE_LANGUAGES:
            raise ConfigError(f"voice.language must be one of {', '.join(VOICE_LANGUAGES)}, not {language!r}")
        rate = d.get("rate", cls.rate)
        if type(rate) is not int or not 80 <= rate <= 450:
            raise ConfigError(f"voice.rate must be words per minute, a whole number from 80 to 450, not {rate!r}")
        return cls(enabled, language, rate)


@dataclass(frozen=True)
class Config:
    """The whole file: ``data_dir`` and the ``[camera]``, ``[zones]``, ``[board]``, ``[web]``, ``[game]`` and ``[voice]`` tables."""

    data_dir: Path = DEFAULT_DATA_DIR
    camera: CameraConfig = field(default_factory=CameraConfig)
    zones: dict[str, list[list[float]]] = field(default_factory=dict)
    board: BoardConfig = field(default_factory=BoardConfig)
    web: WebConfig = field(default_factory=WebConfig)
    game: GameDefaults = field(default_factory=GameDefaults)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    path: Path | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, path: Path | None = None) -> Config:
        _known(d, "config", {"data_dir", "camera", "zones", "board", "web", "game", "voice"})
        for name in ("camera", "zones", "board", "web", "game", "voice"):
            if not isinstance(d.get(name, {}), dict):
                raise ConfigError(f"[{name}] must be a table")
        data_dir = d.get("data_dir", str(DEFAULT_DATA_DIR))
        if not isinstance(data_dir, str) or not data_dir.strip():
            raise ConfigError(f"data_dir must be a folder path, not {data_dir!r}")
        zones = d.get("zones", {})
        try:
            ZoneMap.from_dict(zones)
            board = BoardConfig.from_dict(d.get("board", {}))
            web = WebConfig.from_dict(d.get("web", {}))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        return cls(
            data_dir=Path(data_dir).expanduser(),
            camera=CameraConfig.from_dict(d.get("camera", {})),
            zones={seat: [list(map(float, p)) for p in poly] for seat, poly in zones.items()},
            board=board,
            web=web,
            game=GameDefaults.from_dict(d.get("game", {})),
            voice=VoiceConfig.from_dict(d.get("voice", {})),
            path=path,
        )

    @classmethod
    def load(cls, path: str | Path | None) -> Config:
        """Read the file at ``path``; None (no file given) means every default.

        Zones saved from the camera page (``zones.toml`` in ``data_dir``) take
        the place of the file's ``[zones]``: the service may not write its own
        config (``/etc`` is read-only to it), but it owns its data folder.
        """
        if path is None:
            config = cls.from_dict({})
        else:
            p = Path(path).expanduser()
            config = cls.from_dict(_read_toml(p, "the config"), path=p)
        saved = config.zones_path
        if not saved.exists():
            return config
        zones = _read_toml(saved, "the saved zones").get("zones", {})
        try:
            ZoneMap.from_dict(zones)
        except ValueError as exc:
            raise ConfigError(f"{saved}: {exc} (delete it to use the config's [zones])") from None
        return replace(config, zones={seat: [list(map(float, p)) for p in poly] for seat, poly in zones.items()})

    @property
    def zones_path(self) -> Path:
        """Where the camera page's zones are kept: ``zones.toml`` in the data folder."""
        return self.data_dir / ZONES_FILE

    def save_zones(self, zones: Mapping[str, list[list[float]]]) -> None:
        """Keep ``zones`` in :attr:`zones_path`, whole or not at all (a new file renamed over the old).

        Raises ``OSError`` when the file cannot be written; the old one is then left as it was.
        """
        lines = [
            "# Seat zones saved by the camera page; they take the place of [zones] in the config.",
            "# Delete this file to go back to the config's zones.",
            "[zones]",
            *(f"{_toml_key(seat)} = [{', '.join(f'[{x:.1f}, {y:.1f}]' for x, y in poly)}]" for seat, poly in zones.items()),
        ]
        write_whole(self.zones_path, "\n".join(lines) + "\n")


def _read_toml(path: Path, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def _toml_key(name: str) -> str:
    bare = name.replace("-", "").replace("_", "").isalnum() and name.isascii()
    return name if bare else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
