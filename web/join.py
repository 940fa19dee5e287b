"""Getting the tablets onto the scoreboard: its address, and that address as a QR code.

A player points the tablet's camera at the code (in the console at start, and
on the referee page) instead of typing an address. The codes are made by
``segno``; nothing here talks to the network.

>>> scoreboard_url("192.168.1.20", 8080)
'http://192.168.1.20:8080/'
>>> scoreboard_url("::1", 8080)
'http://[::1]:8080/'
>>> reachable_from_tablets("127.0.0.1"), reachable_from_tablets("0.0.0.0")
(False, True)
"""

from __future__ import annotations

import io
import ipaddress
import socket

import segno

EVERY_INTERFACE = ("0.0.0.0", "::", "")


def lan_address() -> str:
    """This machine's address on its network, as a tablet reaches it (the hostname where there is none).

    Connecting a UDP socket sends nothing: it only asks the kernel which
    interface the route would take.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return socket.gethostname()
    return socket.gethostname() if ipaddress.ip_address(address).is_loopback else address


def reachable_from_tablets(host: str) -> bool:
    """Whether a server listening on ``host`` can be reached from another machine at all."""
    if host in EVERY_INTERFACE:
        return True
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: the network decides
        return True


def scoreboard_url(host: str, port: int) -> str:
    """The scoreboard's address for a server listening on ``host``: this machine's network
    address when it listens on every interface."""
    shown = lan_address() if host in EVERY_INTERFACE else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def qr_terminal(url: str) -> str:
    """``url`` as a QR code of text blocks, two modules a line, light on a dark console."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def qr_svg(url: str) -> str:
    """``url`` as a QR code for a page: an SVG data URI, dark on white, that scales without blur."""
    return segno.make(url, error="m").svg_data_uri(scale=1, border=2, dark="#000", light="#fff", omitsize=True)


def console_join(host: str, port: int, *, how: str) -> str:
    """What the console shows at start for the tablets: the QR code and the address, or, for a
    server only this machine can reach, ``how`` to open it to them."""
    url = scoreboard_url(host, port)
    if not reachable_from_tablets(host):
        return f"Only this machine can open {url}; for the tablets, {how}."
    return f"{qr_terminal(url)}Tablets: point the camera at the code, or open {url}"


def tablet_join(host: str, port: int) -> dict[str, str | None]:
    """For the referee page: the scoreboard's address, and its QR code (None where no tablet can reach it)."""
    url = scoreboard_url(host, port)
    return {"url": url, "qr": qr_svg(url) if reachable_from_tablets(host) else None}
