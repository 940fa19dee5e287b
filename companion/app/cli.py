"""The ``companion`` command: one entry point, one module per subcommand.

Each subcommand lives beside the code it drives and is imported only when
chosen, so ``companion replay`` never loads OpenCV and ``companion eval``
never loads Flask. A subcommand module provides ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("companion.app.demo", "play a simulated game through the camera pipeline, with the scoreboard"),
    "serve": ("companion.app.serve", "run the table: camera, referee, board and scoreboard"),
    "replay": ("companion.replay", "replay a game record and print the board"),
    "backup": ("companion.app.backup", "copy a game store whole (SQLite's backup API), even while the table runs"),
    "web": ("companion.app.web", "serve the scoreboard and referee pages for a stored game record"),
    "eval": ("vision.evaluate", "measure the card recogniser on a labelled image folder"),
    "markers": ("vision.markers", "write a printable sheet of the ArUco markers the seat zones follow"),
    "hardware-test": ("hardware.selftest", "walk every LED, sweep the servo, wait for each button"),
}


class Parser(argparse.ArgumentParser):
    """Bad options are refused in one line that names the command, not the whole usage text."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if a in SUBCOMMANDS), None)
    parser = Parser(prog="companion", description="Table Companion: a referee for Michigan Rummy, Bonanza and Tripoley.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG instead of INFO")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            importlib.import_module(module_name).add_arguments(sp)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    module = importlib.import_module(SUBCOMMANDS[args.command][0])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
