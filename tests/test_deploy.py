"""The Raspberry Pi install: scripts parse, the unit file verifies, the example config loads, a dry run touches nothing."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
SCRIPTS = [DEPLOY / "install.sh", DEPLOY / "check-arm64.sh"]
UNIT = DEPLOY / "table-companion.service"
EXEC_START = "/opt/table-companion/venv/bin/companion serve --config /etc/table-companion/config.toml"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_parses_and_is_executable(script: Path) -> None:
    subprocess.run(["bash", "-n", str(script)], check=True)
    assert os.access(script, os.X_OK)
    assert "set -euo pipefail" in script.read_text()


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (apt install shellcheck)")
def test_scripts_are_shellcheck_clean() -> None:
    result = subprocess.run(["shellcheck", *map(str, SCRIPTS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=True, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def test_unit_has_what_the_service_needs() -> None:
    unit = _unit()
    service = unit["Service"]
    assert service["ExecStart"] == EXEC_START
    assert service["User"] == "companion"
    assert service["Restart"] == "on-failure"
    assert service["StateDirectory"] == "table-companion"
    assert service["ProtectSystem"] == "strict" and service["NoNewPrivileges"] == "yes"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    # Options that would hide /dev/gpiochip*, /dev/video*, /dev/media*, /dev/dma_heap from the service.
    for blocked in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock"):
        assert blocked not in service, blocked


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text())
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True)
    problems = [
        line for line in (result.stdout + result.stderr).splitlines()
        # The venv exists only on an installed Pi; everything else must be clean.
        if line.strip() and "/opt/table-companion/venv/bin/companion is not executable" not in line
    ]
    assert problems == []


def _example() -> dict:
    with open(DEPLOY / "config.example.toml", "rb") as f:
        return tomllib.load(f)


def test_the_service_can_write_where_the_zones_are_saved() -> None:
    """The camera page saves zones to data_dir/zones.toml: under ProtectSystem=strict only the StateDirectory is writable."""
    from companion.app.config import Config

    service = _unit()["Service"]
    config = Config.load(DEPLOY / "config.example.toml")
    assert config.zones_path.parent == Path("/var/lib") / service["StateDirectory"]
    assert service["ProtectSystem"] == "strict" and "ReadWritePaths" not in service


def test_install_writes_a_six_digit_pin_into_a_new_config(tmp_path: Path) -> None:
    """The same sed line install.sh runs, on the example config: the PIN line is found and the config loads."""
    script = (DEPLOY / "install.sh").read_text()
    line = next(ln.strip() for ln in script.splitlines() if ln.strip().startswith('sed -i "s/^# pin'))
    config = tmp_path / "config.toml"
    config.write_text((DEPLOY / "config.example.toml").read_text())
    subprocess.run(["bash", "-c", f"pin=135790; CONFIG={config}; {line}"], check=True)
    with open(config, "rb") as f:
        assert tomllib.load(f)["web"]["pin"] == "135790"


def test_example_config_parses() -> None:
    config = _example()
    assert {"data_dir", "camera", "zones", "board", "web", "game"} <= set(config)
    assert config["data_dir"] == "/var/lib/table-companion"
    assert config["camera"] == {"source": "picamera2", "size": [1280, 720], "fps": 10, "read_again": True,
                                "skip_still": True}


# Each section through the loader of the part that owns it.
def test_example_board_section_loads() -> None:
    from hardware.config import BoardConfig

    cfg = BoardConfig.from_dict(_example()["board"])
    assert cfg.servo_pin == 18 and len(cfg.led_pins) == 10


def test_example_web_section_loads() -> None:
    from web.config import WebConfig

    web = WebConfig.from_dict(_example()["web"])
    assert web.host == "0.0.0.0" and web.port == 8080 and web.pin is None


def test_example_game_section_loads() -> None:
    from companion.rules import variants
    game = _example()["game"]
    variants.variant_class(game["variant"])(options=game["options"])
    assert 2 <= len(game["players"]) <= 9 and len(set(game["players"])) == len(game["players"]) and game["chips"] >= 1


def _fake_root(tmp_path: Path, *, boot: str | None, users: str = "root:x:0:0::/root:/bin/sh\n", systemd: bool = True) -> Path:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    if systemd:
        (root / "run" / "systemd" / "system").mkdir(parents=True)
    (root / "etc" / "os-release").write_text('ID=debian\nVERSION_CODENAME=bookworm\nPRETTY_NAME="Raspberry Pi OS"\n')
    (root / "etc" / "passwd").write_text(users)
    (root / "etc" / "group").write_text("root:x:0:\nvideo:x:44:\ngpio:x:993:\nrender:x:105:\naudio:x:29:\n")
    if boot is not None:
        (root / "boot" / "firmware").mkdir(parents=True)
        (root / "boot" / "firmware" / "config.txt").write_text(boot)
    return root


def _snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


def _dry_run(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEPLOY / "install.sh"), "--dry-run", "--root", str(root), *extra],
        capture_output=True, text=True, timeout=60,
    )


def test_dry_run_prints_every_step_and_touches_nothing(tmp_path: Path) -> None:
    root = _fake_root(tmp_path, boot="dtparam=audio=on\n[pi4]\narm_boost=1\n")
    before = _snapshot(root)
    real_install = Path("/opt/table-companion").exists()
    result = _dry_run(root)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in [
        "Dry run: nothing will be changed",
        "apt-get install -y --no-install-recommends python3 python3-venv python3-pip python3-numpy ca-certificates "
        "avahi-daemon avahi-utils espeak-ng python3-picamera2",
        "useradd --system --user-group",
        "usermod --append --groups video,gpio,render,audio companion",
        f"install -m 0640 -o root -g companion {DEPLOY}/config.example.toml {root}/etc/table-companion/config.toml",
        f"would set a new 6-digit referee PIN in {root}/etc/table-companion/config.toml and show it once",
        f"python3 -m venv --system-site-packages {root}/opt/table-companion/venv",
        f"would write {root}/opt/table-companion/constraints.txt",
        f"--constraint {root}/opt/table-companion/constraints.txt",
        f"would append '[all]' and 'camera_auto_detect=1' to {root}/boot/firmware/config.txt",
        f"install -m 0644 {DEPLOY}/table-companion.service {root}/etc/systemd/system/table-companion.service",
        "systemctl enable table-companion.service",
        "systemctl restart table-companion.service",
        f"install -m 0644 {DEPLOY}/table-companion-name.service {root}/etc/systemd/system/table-companion-name.service",
        "systemctl enable --now avahi-daemon.service",
        "systemctl enable table-companion-name.service",
        "tablets find the Pi as table-companion.local",
        "scoreboard: http://table-companion.local:8080/",
    ]:
        assert expected in out, f"missing {expected!r} in:\n{out}"
    assert _snapshot(root) == before
    assert Path("/opt/table-companion").exists() == real_install


def test_dry_run_keeps_an_existing_config_and_user(tmp_path: Path) -> None:
    root = _fake_root(tmp_path, boot="camera_auto_detect=1\n",
                      users="root:x:0:0::/root:/bin/sh\ncompanion:x:998:998::/var/lib/table-companion:/usr/sbin/nologin\n")
    (root / "etc" / "table-companion").mkdir()
    (root / "etc" / "table-companion" / "config.toml").write_text("[web]\nport = 9090\n")
    before = _snapshot(root)
    result = _dry_run(root, "--no-start")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "user companion exists" in out and "useradd" not in out
    assert "keeping your" in out and "config.example.toml" in out and "install -m 0640" not in out
    assert "camera auto-detection is on" in out
    assert "systemctl restart table-companion.service" not in out and "--no-start" in out
    assert ".local:9090" in out
    assert _snapshot(root) == before


@pytest.mark.parametrize(
    "boot, expected",
    [
        ("camera_auto_detect=0\n", "sed -i.table-companion.bak"),
        ("camera_auto_detect=0\ndtoverlay=imx219\n", "names a camera overlay by hand"),
    ],
)
def test_dry_run_camera_choices(tmp_path: Path, boot: str, expected: str) -> None:
    root = _fake_root(tmp_path, boot=boot)
    result = _dry_run(root)
    assert result.returncode == 0, result.stderr
    assert expected in result.stdout
    assert (root / "boot" / "firmware" / "config.txt").read_text() == boot


def test_dry_run_without_a_running_systemd_only_enables(tmp_path: Path) -> None:
    root = _fake_root(tmp_path, boot=None, systemd=False)
    result = _dry_run(root)
    assert result.returncode == 0, result.stderr
    assert "systemd is not running here" in result.stdout
    assert "systemctl enable table-companion.service" in result.stdout
    assert "daemon-reload" not in result.stdout and "systemctl restart" not in result.stdout.replace("sudo systemctl restart", "")


def test_root_without_dry_run_is_refused(tmp_path: Path) -> None:
    root = _fake_root(tmp_path, boot=None)
    before = _snapshot(root)
    result = subprocess.run(["bash", str(DEPLOY / "install.sh"), "--root", str(root)], capture_output=True, text=True)
    assert result.returncode != 0 and "--root is for --dry-run only" in result.stderr
    assert _snapshot(root) == before


def test_unknown_option_is_an_error() -> None:
    result = subprocess.run(["bash", str(DEPLOY / "install.sh"), "--colour"], capture_output=True, text=True)
    assert result.returncode == 2 and "unknown option '--colour'" in result.stderr


NAME_UNIT = DEPLOY / "table-companion-name.service"


def test_the_name_unit_publishes_table_companion_local_through_avahi() -> None:
    parser = configparser.ConfigParser(strict=True, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(NAME_UNIT.read_text())
    assert "avahi-publish --address --no-reverse table-companion.local" in parser["Service"]["ExecStart"]
    assert parser["Unit"]["Requires"] == "avahi-daemon.service"
    assert parser["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_name_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    copy = tmp_path / NAME_UNIT.name
    copy.write_text(NAME_UNIT.read_text())
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True)
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if line.strip() and "avahi-daemon.service" not in line]  # not installed on a test machine
    assert problems == []


def test_a_pi_already_called_table_companion_gets_no_second_name(tmp_path: Path) -> None:
    root = _fake_root(tmp_path, boot=None)
    (root / "etc" / "hostname").write_text("table-companion\n")
    result = _dry_run(root)
    assert result.returncode == 0, result.stderr
    assert "avahi announces table-companion.local by itself" in result.stdout
    assert "table-companion-name.service" not in result.stdout
