"""Measure the served table: card laid -> shown on the scoreboard, and the serve process's CPU and memory.

``python scripts/measure_serve.py [--fps 15] [--every-frame]``

1. Latency, in one process, with the real parts: the synthetic camera at
   ``--fps`` in real time lays cards round a table in the run phase; the
   camera worker (newest frame first), the recogniser, the tracker, the table
   loop and the referee apply them; waitress serves the app, and a client
   reads ``/api/events`` as a tablet does. A card's latency is from the moment
   its first frame left the camera to the moment the scoreboard's stream
   delivered the view with it.
2. Cost: ``companion serve`` as its own process on the same synthetic camera;
   CPU (user + system seconds over wall seconds) and resident memory are read
   from ``/proc`` while it serves.

Both read the frames as ``companion serve`` does, through
:class:`vision.still.StillFrames`; ``--every-frame`` reads every frame
(``skip_still = false``), to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where they are used, after the arguments are read
    from vision.sources import Frame

OPENING: list[dict[str, Any]] = [
    {"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy", "Dee"], "chips": 100},
    {"type": "deal", "dealer": "Ann"},
    {"type": "widow", "action": "keep"},
    {"type": "next"},
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def latency(fps: float, skip_still: bool) -> list[float]:
    import cv2
    from waitress import create_server

    from companion.app.serve import CameraWorker, LatestFrame, TableLoop
    from companion.table import Table
    from vision.recognizer import Recognizer
    from vision.sources import Place, demo_table
    from vision.tracker import Tracker
    from vision.zones import ZoneMap
    from web.app import create_app
    from web.config import WebConfig

    cv2.setNumThreads(1)
    table = Table.open(Path(tempfile.mkdtemp()) / "game.sqlite")
    for event in OPENING:
        table.submit(event)
    source = demo_table(fps=fps, realtime=True)
    placed_at = {step.at: step.card.code for step in source._script if isinstance(step, Place)}
    laid: dict[str, float] = {}

    class TimedFrames:
        """The camera, noting when each card's first frame leaves it."""

        def __iter__(self) -> Iterator[Frame]:
            for frame in source:
                if frame.index in placed_at:
                    laid[placed_at[frame.index]] = time.monotonic()
                yield frame

        def close(self) -> None:
            source.close()

    port = free_port()
    zones = ZoneMap.around_table(["Ann", "Bob", "Cy", "Dee"], (1280, 720))
    view = LatestFrame(zones)
    loop = TableLoop(table)
    app = create_app(table, config=WebConfig(port=port, pin="2468"), camera=view)
    server = create_server(app, host="127.0.0.1", port=port, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    shown: dict[str, float] = {}

    def listen() -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/events", timeout=60) as stream:
            for raw in stream:
                line = raw.decode().strip()
                if line.startswith("data:"):
                    card = json.loads(line[5:])["run"]["last_card"]
                    if card and card not in shown:
                        shown[card] = time.monotonic()

    threading.Thread(target=listen, daemon=True).start()
    time.sleep(0.5)
    worker = CameraWorker(TimedFrames(), Recognizer().detect, Tracker(), view, skip_still=skip_still,
                          on_events=loop.handle).start()
    end = time.monotonic() + (source.frames or 0) / fps + 5
    while time.monotonic() < end and len(shown) < len(placed_at):
        time.sleep(0.1)
    worker.stop()
    server.close()
    print(f"camera frames read {worker.frames_read}, recognised {worker.frames_recognised}, dropped {worker.frames_dropped}")
    return [shown[c] - laid[c] for c in placed_at.values() if c in shown and c in laid]


def cost(fps: float, seconds: float, skip_still: bool) -> tuple[float, float]:
    data = Path(tempfile.mkdtemp())
    from companion.table import Table

    with Table.open(data / "game.sqlite") as table:
        for event in OPENING:
            table.submit(event)
    config = data / "config.toml"
    config.write_text(f'data_dir = "{data}"\n[camera]\nsource = "demo"\nfps = {fps}\nskip_still = {str(skip_still).lower()}\n'
                      f'[web]\nport = {free_port()}\npin = "2468"\n'
                      '[game]\nplayers = ["Ann", "Bob", "Cy", "Dee"]\n')
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tick = os.sysconf("SC_CLK_TCK")
    time.sleep(3)  # start-up: imports, model load

    def cpu() -> float:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    start_cpu, start = cpu(), time.monotonic()
    rss = []
    while time.monotonic() - start < seconds:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        rss.append(int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))) / 1024)
        time.sleep(0.5)
    used = cpu() - start_cpu
    proc.terminate()
    proc.wait(timeout=10)
    return used / (time.monotonic() - start), max(rss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to sample the serve process")
    parser.add_argument("--every-frame", action="store_true", help="read every frame (skip_still = false)")
    args = parser.parse_args()
    delays = latency(args.fps, not args.every_frame)
    if delays:
        ms = sorted(d * 1000 for d in delays)
        print(f"card laid -> on the scoreboard at {args.fps:g} fps: {len(ms)} cards, median {statistics.median(ms):.0f} ms, "
              f"max {ms[-1]:.0f} ms (each: {', '.join(f'{d * 1000:.0f}' for d in delays)}; the demo camera passes a hand "
              "over the third card as it lands)")
    else:
        print("no card reached the scoreboard")
    share, rss = cost(args.fps, args.seconds, not args.every_frame)
    print(f"companion serve at {args.fps:g} fps: CPU {share * 100:.0f}% of one core, resident memory up to {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
