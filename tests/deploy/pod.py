"""A pod on this machine for the deploy tests: its own network namespace, file system view and confinement.

:func:`pod_network` makes a network namespace joined to this one by a veth pair, in 198.18.0.0/15 (the
range set aside for network tests): the pod's address is not loopback, and traffic to it stays on this
machine. Names the manifests use for cluster services (the database, the collector) resolve inside the
pod to this end of the pair (``/etc/netns/<name>/hosts``, which ``ip netns exec`` mounts over
``/etc/hosts``), where :class:`Forwarder` relays to the test PostgreSQL and :class:`Collector` plays the
OpenTelemetry collector.

:class:`Pod` runs a container's command line in the namespace as the container runtime would: container
paths (``/etc/guard``, ``/opt/guard``, ``/tmp`` ...) map into a directory standing for the image's file
system; with ``readOnlyRootFilesystem`` every file system is read-only but the container's writable
volumes; with ``capabilities.drop: [ALL]`` and ``allowPrivilegeEscalation: false`` the process has no
capability and ``no_new_privs``. The user id is not changed: this machine's interpreter lives under
``/root`` (mode 700), which another user cannot reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["Collector", "Confinement", "Forwarder", "Pod", "PodNetwork", "network_problem", "pod_network"]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def network_problem() -> str | None:
    """Why no network namespace can be made here, or None."""
    if shutil.which("ip") is None:
        return "the ip command (Debian package iproute2) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root"
    probe = f"gdprobe{secrets.token_hex(3)}"
    try:
        _ip("netns", "add", probe)
    except subprocess.CalledProcessError as exc:
        return f"ip netns add failed: {exc.stderr.strip()}"
    _ip("netns", "del", probe)
    return None


@dataclass(frozen=True)
class PodNetwork:
    """A network namespace ``name`` at ``pod_ip``, reached from this one at ``node_ip``."""

    name: str
    node_ip: str
    pod_ip: str


@contextlib.contextmanager
def pod_network(service_names: Sequence[str]) -> Iterator[PodNetwork]:
    """A fresh namespace and veth pair; ``service_names`` resolve inside it to the node's end."""
    tag = secrets.token_hex(3)
    name, outer, inner = f"gdpod{tag}", f"gdn{tag}", f"gdp{tag}"
    subnet = secrets.randbelow(1 << 14) * 4  # a /30 of 198.18.0.0/15 for each run
    base = f"198.{18 + (subnet >> 16)}.{(subnet >> 8) & 255}"
    node_ip, pod_ip = f"{base}.{(subnet & 255) + 1}", f"{base}.{(subnet & 255) + 2}"
    etc = Path("/etc/netns") / name
    try:
        _ip("netns", "add", name)
        _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        _ip("link", "set", inner, "netns", name)
        _ip("addr", "add", f"{node_ip}/30", "dev", outer)
        _ip("link", "set", outer, "up")
        _ip("-n", name, "addr", "add", f"{pod_ip}/30", "dev", inner)
        _ip("-n", name, "link", "set", inner, "up")
        _ip("-n", name, "link", "set", "lo", "up")
        etc.mkdir(parents=True, exist_ok=True)
        hosts = ["127.0.0.1 localhost", "::1 localhost", f"{node_ip} {' '.join(service_names)}"]
        (etc / "hosts").write_text("\n".join(hosts) + "\n")
        yield PodNetwork(name, node_ip, pod_ip)
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            _ip("link", "del", outer)
        with contextlib.suppress(subprocess.CalledProcessError):
            _ip("netns", "del", name)
        shutil.rmtree(etc, ignore_errors=True)


@dataclass(frozen=True)
class Confinement:
    """What a container's ``securityContext`` asks of the process (the parts emulated here)."""

    read_only_root: bool
    no_capabilities: bool
    no_new_privileges: bool

    @classmethod
    def of(cls, container: Mapping[str, Any]) -> Confinement:
        context = container.get("securityContext", {})
        return cls(
            read_only_root=context.get("readOnlyRootFilesystem", False),
            no_capabilities="ALL" in context.get("capabilities", {}).get("drop", []),
            no_new_privileges=context.get("allowPrivilegeEscalation", True) is False,
        )


@dataclass
class Pod:
    """Runs command lines in ``network`` over ``root``, the directory standing for the container's files."""

    network: PodNetwork
    root: Path
    mapped: tuple[str, ...] = ("/etc/guard", "/opt/guard", "/tmp", "/var/lib/guard")
    writable: list[str] = field(default_factory=list)

    def path(self, container_path: str) -> str:
        """Where ``container_path`` is on this machine (unchanged when it is not under a mapped folder)."""
        for prefix in self.mapped:
            if container_path == prefix or container_path.startswith(prefix + "/"):
                return str(self.root) + container_path
        return container_path

    def argv(self, argv: Sequence[str], confinement: Confinement, cwd: str) -> list[str]:
        """``argv`` (container paths) as run in the pod under ``confinement``, starting in ``cwd``."""
        steps = ["set -e"]
        if confinement.read_only_root:
            for volume in self.writable:
                steps.append(
                    f"mount --bind {shlex.quote(self.path(volume))} {shlex.quote(self.path(volume))}"
                )
            steps.append("mount -o remount,bind,ro /")
        steps.append(f"cd {shlex.quote(self.path(cwd))}")
        drop = ["setpriv"]
        if confinement.no_new_privileges:
            drop.append("--no-new-privs")
        if confinement.no_capabilities:
            drop += ["--bounding-set=-all", "--inh-caps=-all"]
        steps.append(f'exec {" ".join(drop)} -- "$@"')
        mapped = [self.path(part) for part in argv]
        script = "\n".join(steps)
        namespace = ["ip", "netns", "exec", self.network.name]
        return [
            *namespace,
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            script,
            "sh",
            *mapped,
        ]

    def environment(self, env: Mapping[str, str], image_env: Mapping[str, str]) -> dict[str, str]:
        """The process environment: the image's (its paths mapped), then the container's."""
        path = ":".join(
            self.path(part) for part in image_env.get("PATH", "").replace("$PATH", "").split(":") if part
        )
        base = {
            "PATH": f"{path}:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": self.path("/var/lib/guard"),
            "TMPDIR": self.path("/tmp"),
            "LANG": "C.UTF-8",
        }
        base.update({k: v for k, v in image_env.items() if k != "PATH"})
        return {**base, **env}


class Forwarder:
    """Relays TCP connections from ``listen`` to ``target`` (a database the pod cannot reach itself)."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self._listen, self._target = listen, target
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="forwarder", daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> Forwarder:
        self._thread.start()
        assert self._ready.wait(10), "the forwarder did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._relay, *self._listen))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            self._loop.run_until_complete(asyncio.sleep(0))
            self._loop.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


class Collector:
    """Answers OTLP/HTTP exports at ``listen`` with 200 and counts them (the collector's part)."""

    def __init__(self, listen: tuple[str, int]) -> None:
        posts: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                posts.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.posts: list[str] = posts
        self._server = ThreadingHTTPServer(listen, Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="collector", daemon=True)

    def __enter__(self) -> Collector:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
