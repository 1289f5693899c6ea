"""The image's HEALTHCHECK: ``GET /healthz`` where the guard's own settings say it listens.

Docker runs this inside the container, with the container's environment, so it reads the settings the
server reads: the config file (first argument, default ``/etc/guard/guard.yaml``) and the ``GUARD_*``
variables over it. Nothing is hard-coded: the port is ``server.port``; the address is ``server.host``, or
the loopback address when the guard binds every interface; the Host header is one the guard's door
accepts (``server.allowed_hosts``: a loopback name when it has one, else its first entry). A port given
on the command line (``guard serve --port``) is not seen: set ``server.port`` or ``GUARD_SERVER__PORT``.

Exit 0 when ``/healthz`` answers 200; 1 (unhealthy) otherwise, with the reason on stderr.
"""

from __future__ import annotations

import http.client
import sys
from pathlib import Path

from guard.settings import GuardSettings, load_settings

__all__ = ["DEFAULT_CONFIG", "probe", "target"]

DEFAULT_CONFIG = Path("/etc/guard/guard.yaml")
_EVERY_INTERFACE = {"", "0.0.0.0", "::", "[::]"}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address and not address.startswith("[") else address


def _name(entry: str) -> str:
    """The host name of an ``allowed_hosts`` entry (``host``, ``host:port``, ``host:*``, IPv6)."""
    if entry.startswith("["):
        return entry[: entry.index("]") + 1]
    return entry.split(":", 1)[0] if entry.count(":") == 1 else _bracketed(entry)


def _host_header(settings: GuardSettings, address: str) -> str:
    allowed = settings.server.allowed_hosts
    if allowed is None or "*" in allowed:
        return _bracketed(address)
    loopback = [entry for entry in allowed if _name(entry) in _LOOPBACK_NAMES]
    entry = (loopback or allowed)[0]
    port = entry[len(_name(entry)) + 1 :] if entry.count(":") == 1 or entry.startswith("[") else ""
    return _name(entry) if port in ("", "*") else f"{_name(entry)}:{port}"


def target(settings: GuardSettings) -> tuple[str, int, str]:
    """(address to connect to, port, Host header) for ``settings``."""
    host = settings.server.host.strip()
    address = "127.0.0.1" if host in _EVERY_INTERFACE else host.strip("[]")
    return address, settings.server.port, _host_header(settings, address)


def probe(settings: GuardSettings, timeout_s: float = 3.0) -> str | None:
    """None when ``/healthz`` answers 200; else what went wrong."""
    address, port, host = target(settings)
    connection = http.client.HTTPConnection(address, port, timeout=timeout_s)
    try:
        connection.request("GET", "/healthz", headers={"Host": host})
        status = connection.getresponse().status
    except OSError as exc:
        return f"GET http://{address}:{port}/healthz: {exc}"
    finally:
        connection.close()
    return None if status == 200 else f"GET http://{address}:{port}/healthz (Host {host}): HTTP {status}"


def main(argv: list[str]) -> int:
    config = Path(argv[0]) if argv else DEFAULT_CONFIG
    try:
        problem = probe(load_settings(config))
    except Exception as exc:  # any failure is "unhealthy", said in one line
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
