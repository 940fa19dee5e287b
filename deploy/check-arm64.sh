#!/usr/bin/env bash
# Shows, without a Raspberry Pi, that the project installs and its tests pass on
# 64-bit ARM: a Debian arm64 root made with debootstrap, run under
# qemu-user-static, where the runtime dependencies come from PyPI's aarch64
# wheels only (no compiler in the root) and the chosen tests run.
#
#   sudo deploy/check-arm64.sh                       # bookworm, default tests
#   sudo SUITE=trixie deploy/check-arm64.sh tests/test_store.py
#
# Needs root (debootstrap, chroot, mounts), network to the Debian mirror and
# PyPI, and a kernel that lets binfmt_misc be registered. Slow (emulated CPU):
# see docs/install.md for the measured time. Not part of `make test`.
set -euo pipefail

SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ROOT=${ROOT:-/var/tmp/table-companion-arm64-$SUITE}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEFAULT_TESTS=(tests/test_cards*.py tests/test_engine*.py tests/test_game*.py tests/test_rules*.py tests/test_record*.py tests/test_replay*.py tests/test_store.py tests/test_deploy.py)

say() { printf '\n== %s\n' "$*"; }
die() { printf 'check-arm64: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "run as root (debootstrap, chroot and mounts need it)"
start=$(date +%s)

say "host tools"
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null || missing+=(binfmt-support)
if ((${#missing[@]})); then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

say "binfmt_misc: arm64 programs run through qemu-aarch64-static"
if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
        || die "cannot mount binfmt_misc (an unprivileged container?): arm64 programs cannot run here"
fi
update-binfmts --enable qemu-aarch64 || true
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] \
    || die "qemu-aarch64 is not registered with binfmt_misc; cannot run arm64 programs"
# Without the F flag the kernel looks the interpreter up inside the chroot.
interp=$(sed -n 's/^interpreter //p' /proc/sys/fs/binfmt_misc/qemu-aarch64)

# Mounts left by a run that was killed: never delete through them into the host's /dev.
for m in dev/pts dev sys proc; do
    if mountpoint -q "$ROOT/$m" 2>/dev/null; then umount "$ROOT/$m"; fi
done

if [[ ! -e "$ROOT/.table-companion-root" ]]; then
    say "debootstrap $SUITE arm64 into $ROOT"
    rm -rf --one-file-system "$ROOT"
    debootstrap --arch=arm64 --variant=minbase --foreign \
        --include=python3,python3-venv,python3-pip,ca-certificates,systemd \
        "$SUITE" "$ROOT" "$MIRROR"
    install -D -m 0755 "$(command -v qemu-aarch64-static)" "$ROOT$interp"
    chroot "$ROOT" /debootstrap/debootstrap --second-stage
    touch "$ROOT/.table-companion-root"
else
    say "reusing the arm64 root in $ROOT (delete it to start over)"
    install -D -m 0755 "$(command -v qemu-aarch64-static)" "$ROOT$interp"
fi

cleanup() {
    for m in dev/pts dev proc; do umount "$ROOT/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
mount -t proc proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
mount -t devpts devpts "$ROOT/dev/pts"  # apt/dpkg log through a pty
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# A host behind a TLS-inspecting proxy trusts extra local CAs; the root must too, or pip cannot reach PyPI.
for ca in /usr/local/share/ca-certificates/*.crt; do
    [[ -e $ca ]] || continue
    if ! cmp -s "$ca" "$ROOT$ca"; then
        install -D -m 0644 "$ca" "$ROOT$ca"
        refresh_cas=1
    fi
done
if [[ -n ${refresh_cas:-} ]]; then
    say "trusting the host's local CAs in the root"
    chroot "$ROOT" /usr/sbin/update-ca-certificates >/dev/null
fi

say "copying the checkout (as install.sh does: without .git, .venv, build/) to $ROOT/src"
rm -rf "$ROOT/src"
mkdir -p "$ROOT/src"
tar -C "$REPO" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' -cf - . | tar -C "$ROOT/src" -xf -

tests=("$@")
if ((${#tests[@]} == 0)); then
    for pattern in "${DEFAULT_TESTS[@]}"; do
        for f in "$REPO"/$pattern; do [[ -e $f ]] && tests+=("${f#"$REPO"/}"); done
    done
fi

say "1/2 aarch64 wheels only: a plain venv, the project, tests: ${tests[*]}"
t0=$(date +%s)
# shellcheck disable=SC2016  # the script is expanded by the bash inside the root
chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 /bin/bash -euo pipefail -c '
    echo "machine: $(uname -m), $(python3 -V)"
    rm -rf /opt/tc-wheels
    python3 -m venv /opt/tc-wheels
    /opt/tc-wheels/bin/pip install -q --upgrade pip
    python3 -c "import tomllib; print(*tomllib.load(open(\"/src/pyproject.toml\", \"rb\"))[\"project\"][\"dependencies\"], sep=\"\n\")" > /tmp/runtime.txt
    /opt/tc-wheels/bin/pip install -q --only-binary=:all: -r /tmp/runtime.txt pytest hypothesis
    /opt/tc-wheels/bin/pip install -q --no-deps /src
    /opt/tc-wheels/bin/pip list --format=freeze | grep -iE "^(numpy|opencv-python-headless|onnxruntime|pokerkit|flask|waitress|gpiozero|table.companion)==" | tr "\n" " "; echo
    /opt/tc-wheels/bin/python -c "import cv2, numpy, onnxruntime, pokerkit, flask, waitress, gpiozero, companion.store; print(\"imports ok\")"
    /opt/tc-wheels/bin/companion --help >/dev/null && echo "companion --help ok"
    cd /src && /opt/tc-wheels/bin/python -m pytest -q -p no:cacheprovider "$@"
' check-arm64 "${tests[@]}"
wheels_s=$(( $(date +%s) - t0 ))

say "2/2 deploy/install.sh for real, twice (systemd installed but not running, as in any chroot)"
t0=$(date +%s)
# shellcheck disable=SC2016  # the script is expanded by the bash inside the root
chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 /bin/bash -euo pipefail -c '
    command -v systemctl >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null
    bash /src/deploy/install.sh --no-start
    echo "# kept by the second run" >> /etc/table-companion/config.toml
    bash /src/deploy/install.sh --no-start
    grep -q "^# kept by the second run" /etc/table-companion/config.toml && echo "second run kept the edited config"
    id companion
    systemctl is-enabled table-companion.service
    /opt/table-companion/venv/bin/python -c "import numpy, cv2; print(\"venv: numpy\", numpy.__version__, numpy.__file__, \"opencv\", cv2.__version__)"
    /opt/table-companion/venv/bin/pip install -q --constraint /opt/table-companion/constraints.txt pytest hypothesis
    cd /src && /opt/table-companion/venv/bin/python -m pytest -q -p no:cacheprovider "$@"
' check-arm64 "${tests[@]}"
install_s=$(( $(date +%s) - t0 ))

say "arm64 check passed in $(( $(date +%s) - start )) s (wheels venv and tests ${wheels_s} s, install.sh twice and tests ${install_s} s)"
