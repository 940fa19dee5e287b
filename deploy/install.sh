#!/usr/bin/env bash
# Installs (or upgrades) Table Companion on Raspberry Pi OS Bookworm or Trixie,
# 64-bit, from the checkout this script sits in, as a systemd service.
#
#   sudo deploy/install.sh             install, or upgrade: run it again after `git pull`
#   deploy/install.sh --dry-run        print every step, change nothing (no root needed)
#   sudo deploy/install.sh --no-start  install and enable, but do not (re)start now
#
# What goes where (docs/install.md explains each choice):
#   /opt/table-companion/venv                 Python venv (--system-site-packages) with the project
#   /opt/table-companion/constraints.txt      numpy pinned to the system's (see below)
#   /etc/table-companion/config.toml          your config: created from deploy/config.example.toml only if absent
#   /var/lib/table-companion                  games, the web session key and the camera page's zones.toml, owned by user companion
#   /etc/systemd/system/table-companion.service
#   /etc/systemd/system/table-companion-name.service   the name table-companion.local (avahi)
#
# The venv sees the system's python3-picamera2 and the python3-numpy it (and
# python3-simplejpeg, python3-libcamera) was compiled against. pip must never
# put a different numpy in front of them, so the install is constrained to the
# system numpy's exact version; pip then picks the newest opencv-python-headless
# and onnxruntime wheels that accept it (for numpy 1.x: opencv 4.11, capped up front).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=""
DRY_RUN=0
START=1

usage() { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while (($#)); do
    case $1 in
        --dry-run) DRY_RUN=1 ;;
        --no-start) START=0 ;;
        --root)
            # Inspect another root (a mounted image, a test tree) instead of /.
            # Only with --dry-run: apt, useradd and systemctl would act on this system.
            [[ $# -ge 2 ]] || { echo "install.sh: --root needs a folder" >&2; exit 2; }
            ROOT=${2%/}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

PREFIX=$ROOT/opt/table-companion
VENV=$PREFIX/venv
CONSTRAINTS=$PREFIX/constraints.txt
CONF_DIR=$ROOT/etc/table-companion
CONFIG=$CONF_DIR/config.toml
DATA=$ROOT/var/lib/table-companion
UNIT=$ROOT/etc/systemd/system/table-companion.service
NAME_UNIT=$ROOT/etc/systemd/system/table-companion-name.service
LOCAL_NAME=table-companion
SERVICE_USER=companion
SERVICE_GROUPS=(video gpio render audio)
APT_PACKAGES=(python3 python3-venv python3-pip python3-numpy ca-certificates avahi-daemon avahi-utils espeak-ng)
SYSTEM_PYTHON=$ROOT/usr/bin/python3

step() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# User and group look-ups read the --root tree's files when there is one.
has_user() { if [[ -n $ROOT ]]; then grep -q "^$1:" "$ROOT/etc/passwd" 2>/dev/null; else getent passwd "$1" >/dev/null; fi; }
has_group() { if [[ -n $ROOT ]]; then grep -q "^$1:" "$ROOT/etc/group" 2>/dev/null; else getent group "$1" >/dev/null; fi; }
# "3.11" from a venv's pyvenv.cfg or from a python; empty when there is none.
venv_python_version() {
    if [[ -r $1 ]]; then sed -En 's/^version(_info)?[[:space:]]*=[[:space:]]*([0-9]+\.[0-9]+).*/\2/p' "$1" | head -n 1; fi
}
system_python_version() { "$SYSTEM_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true; }

# A command as one could paste it: plain words as they are, the rest shell-quoted.
show() {
    local arg
    for arg; do
        if [[ $arg =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then printf ' %s' "$arg"; else printf ' %q' "$arg"; fi
    done
    printf '\n'
}

# Runs a command, or under --dry-run only prints it.
run() {
    if ((DRY_RUN)); then
        printf '    would run:'; show "$@"
    else
        printf '    +'; show "$@"
        "$@"
    fi
}

# Writes stdin to a file (mode $2), or under --dry-run prints what would be written.
write_file() {
    local path=$1 mode=$2 content
    content=$(cat)
    if ((DRY_RUN)); then
        printf '    would write %s (mode %s):\n' "$path" "$mode"
        printf '%s\n' "$content" | sed 's/^/        | /'
    else
        printf '    + write %s\n' "$path"
        install -m "$mode" /dev/null "$path"
        printf '%s\n' "$content" > "$path"
    fi
}

if [[ -n $ROOT && $DRY_RUN -eq 0 ]]; then
    die "--root is for --dry-run only (apt-get, useradd and systemctl would act on this system, not on $ROOT)"
fi
if ((!DRY_RUN)) && [[ $(id -u) -ne 0 ]]; then
    die "run as root: sudo $0 (or try --dry-run first)"
fi
((DRY_RUN)) && printf 'Dry run: nothing will be changed.\n'

step "Checking the system"
[[ -r $ROOT/etc/os-release ]] || die "$ROOT/etc/os-release is missing: not a Debian-based system?"
# shellcheck source=/dev/null
os_id=$(. "$ROOT/etc/os-release" && printf '%s' "${ID:-unknown}")
# shellcheck source=/dev/null
codename=$(. "$ROOT/etc/os-release" && printf '%s' "${VERSION_CODENAME:-unknown}")
note "system: $os_id $codename, $(uname -m)"
case $codename in
    bookworm|trixie) ;;
    *) warn "tested on Raspberry Pi OS Bookworm and Trixie, not '$codename'; continuing" ;;
esac
[[ $(uname -m) == aarch64 ]] || warn "not a 64-bit ARM system ($(uname -m)); the Pi camera packages may be missing"
[[ -f $SRC/pyproject.toml && -f $SRC/deploy/table-companion.service ]] \
    || die "$SRC does not look like a Table Companion checkout (no pyproject.toml)"

step "Installing system packages"
run apt-get update
if ((DRY_RUN)) || apt-cache show python3-picamera2 >/dev/null 2>&1; then
    APT_PACKAGES+=(python3-picamera2)
else
    warn "python3-picamera2 is not in this system's apt sources (not Raspberry Pi OS?): only USB cameras will work"
fi
# gpiozero drives the board through lgpio (the only pin library on a Pi 5); without it every pin is a mock.
if ((DRY_RUN)) || apt-cache show python3-lgpio >/dev/null 2>&1; then
    APT_PACKAGES+=(python3-lgpio)
else
    warn "python3-lgpio is not in this system's apt sources: the board's LEDs, servo and buttons will not move"
fi
# --no-install-recommends keeps picamera2's desktop preview stack (Qt, OpenGL) off a headless Pi.
run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"

step "Creating user '$SERVICE_USER' and its folders"
if has_user "$SERVICE_USER"; then
    note "user $SERVICE_USER exists"
else
    run useradd --system --user-group --home-dir /var/lib/table-companion --no-create-home \
        --shell /usr/sbin/nologin --comment "Table Companion" "$SERVICE_USER"
fi
groups_found=()
for group in "${SERVICE_GROUPS[@]}"; do
    if has_group "$group"; then groups_found+=("$group"); else note "no group '$group' here; skipped"; fi
done
if ((${#groups_found[@]})); then
    run usermod --append --groups "$(IFS=,; printf '%s' "${groups_found[*]}")" "$SERVICE_USER"
fi
run install -d -m 0755 "$PREFIX" "$CONF_DIR"
run install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$DATA"

step "Configuration"
if [[ -e $CONFIG ]]; then
    note "keeping your $CONFIG (compare with $SRC/deploy/config.example.toml for new keys)"
else
    run install -m 0640 -o root -g "$SERVICE_USER" "$SRC/deploy/config.example.toml" "$CONFIG"
    # A 6-digit referee PIN of its own, written into the config (readable by root and the service only).
    if ((DRY_RUN)); then
        note "would set a new 6-digit referee PIN in $CONFIG and show it once"
    else
        pin=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ' | awk '{ printf "%06d", $1 % 1000000 }')
        sed -i "s/^# pin = \"2468\"\$/pin = \"$pin\"/" "$CONFIG"
        grep -q "^pin = \"$pin\"\$" "$CONFIG" || die "could not write the referee PIN into $CONFIG"
        note "the referee PIN is $pin (shown only now; it is the [web] pin in $CONFIG)"
    fi
fi

step "Python environment in $VENV"
old=$(venv_python_version "$VENV/pyvenv.cfg")
new=$(system_python_version)
if [[ -n $old && -n $new && $old != "$new" ]]; then
    # The system Python changed (Bookworm -> Trixie): the old venv cannot be reused.
    note "the venv is for Python $old, the system now has $new: making a new one"
    run rm -rf "$VENV"
fi
if [[ -x $VENV/bin/python && ( -z $old || -z $new || $old == "$new" ) ]]; then
    note "reusing the venv; upgrading what is in it"
else
    run python3 -m venv --system-site-packages "$VENV"
fi
# The system numpy, not the venv's: a numpy a past run put in the venv must not pin itself.
if numpy_version=$("$SYSTEM_PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null); then
    note "system numpy $numpy_version: the venv keeps exactly this one"
elif ((DRY_RUN)); then
    numpy_version='<version of python3-numpy, installed above>'
else
    die "the system python3 cannot import numpy after installing python3-numpy"
fi
opencv_cap=""
if [[ $numpy_version == 1.* ]]; then
    # opencv-python-headless 4.12.0.88 and later require numpy >= 2; saying so up front
    # spares pip downloading (and rejecting) each newer wheel, about 140 MB.
    opencv_cap=$'\n# OpenCV wheels from 4.12.0.88 on require numpy >= 2.\nopencv-python-headless<4.12'
fi
write_file "$CONSTRAINTS" 0644 <<EOF
# Written by deploy/install.sh: picamera2 and its compiled helpers (simplejpeg)
# from apt are built against this numpy; another one in the venv would break them.
numpy==$numpy_version$opencv_cap
EOF
run "$VENV/bin/python" -m pip install --quiet --upgrade pip
# pip builds from a copy, so root-owned build/ and *.egg-info never land in your checkout.
if ((DRY_RUN)); then
    build_dir=$ROOT/tmp/table-companion-build.XXXXXX
    note "would copy $SRC (without .git, .venv, build/) to $build_dir"
else
    build_dir=$(mktemp -d /tmp/table-companion-build.XXXXXX)
    trap 'rm -rf "$build_dir"' EXIT
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' -cf - . | tar -C "$build_dir" -xf -
fi
run "$VENV/bin/python" -m pip install --upgrade --upgrade-strategy only-if-needed \
    --constraint "$CONSTRAINTS" "$build_dir"
if ((!DRY_RUN)); then
    "$VENV/bin/python" - "$numpy_version" <<'EOF'
import sys
import numpy, cv2
assert numpy.__version__ == sys.argv[1], f"numpy {numpy.__version__} in the venv, expected the system's {sys.argv[1]}"
print(f"    numpy {numpy.__version__} (from {numpy.__file__.rsplit('/', 3)[0]}), opencv {cv2.__version__}")
try:
    import picamera2  # noqa: F401
    print("    picamera2 imports")
except ImportError as exc:
    print(f"    picamera2 does not import ({exc}): only USB cameras will work")
EOF
fi
run install -D -m 0644 "$SRC/docs/install.md" "$PREFIX/docs/install.md"

step "Camera"
boot_config=$ROOT/boot/firmware/config.txt  # Bookworm and later
[[ -e $boot_config ]] || boot_config=$ROOT/boot/config.txt
if [[ ! -e $boot_config ]]; then
    note "no $ROOT/boot/firmware/config.txt or $ROOT/boot/config.txt: not a Raspberry Pi? leaving the camera alone"
elif grep -Eq '^[[:space:]]*camera_auto_detect=1' "$boot_config"; then
    note "camera auto-detection is on in $boot_config"
elif grep -Eq '^[[:space:]]*dtoverlay=(imx|ov|arducam)' "$boot_config"; then
    note "$boot_config names a camera overlay by hand; leaving it as it is"
elif grep -Eq '^[[:space:]]*camera_auto_detect=' "$boot_config"; then
    run sed -i.table-companion.bak -E 's/^([[:space:]]*)camera_auto_detect=.*/\1camera_auto_detect=1/' "$boot_config"
    note "camera auto-detection turned on (old file kept as $boot_config.table-companion.bak): reboot to use the camera"
else
    # Appended under [all], so that a [pi4]/[cm4] filter at the end does not limit it.
    if ((DRY_RUN)); then
        note "would append '[all]' and 'camera_auto_detect=1' to $boot_config"
    else
        printf '\n[all]\n# Added by Table Companion deploy/install.sh\ncamera_auto_detect=1\n' >> "$boot_config"
        note "camera auto-detection added to $boot_config: reboot to use the camera"
    fi
fi

step "Service"
run install -m 0644 "$SRC/deploy/table-companion.service" "$UNIT"
if [[ -d $ROOT/run/systemd/system ]]; then
    run systemctl daemon-reload
    run systemctl enable table-companion.service
    if ((START)); then
        run systemctl restart table-companion.service
    else
        note "--no-start: start it with: sudo systemctl start table-companion"
    fi
else
    # A chroot or an image being built: enabling only links files, which works without a running systemd.
    note "systemd is not running here: the service is enabled and starts at the next boot"
    run systemctl enable table-companion.service
fi

step "Network name"
# The Pi's own name: /etc/hostname of the --root tree, or this machine's.
if [[ -n $ROOT ]]; then hostname=$(cat "$ROOT/etc/hostname" 2>/dev/null || true); else hostname=$(uname -n); fi
if [[ $hostname == "$LOCAL_NAME" ]]; then
    note "this Pi is called $LOCAL_NAME: avahi announces $LOCAL_NAME.local by itself"
else
    run install -m 0644 "$SRC/deploy/table-companion-name.service" "$NAME_UNIT"
    if [[ -d $ROOT/run/systemd/system ]]; then
        run systemctl daemon-reload
        run systemctl enable --now avahi-daemon.service
        run systemctl enable table-companion-name.service
        run systemctl restart table-companion-name.service
    else
        run systemctl enable avahi-daemon.service table-companion-name.service
    fi
    note "tablets find the Pi as $LOCAL_NAME.local (and as ${hostname:-its own name}.local)"
fi

reader=$SYSTEM_PYTHON
[[ -x $reader ]] || reader=python3  # a --root tree without its own Python
port=$("$reader" - "$CONFIG" "$SRC/deploy/config.example.toml" 2>/dev/null <<'EOF' || echo 8080
import sys, tomllib
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            print(tomllib.load(f).get("web", {}).get("port", 8080))
        break
    except OSError:
        continue
EOF
)
step "Done"
if ((DRY_RUN)); then
    note "dry run: nothing was changed"
fi
note "scoreboard: http://$LOCAL_NAME.local:$port/  (or http://<the Pi's address>:$port/)"
note "logs:       journalctl -u table-companion -f"
note "config:     ${CONFIG#"$ROOT"}  (then: sudo systemctl restart table-companion)"
