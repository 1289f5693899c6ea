"""What the kubelet and the container runtime make of the manifests, for the deploy tests (pure functions).

Each function follows the documented Kubernetes rule it names: ``$(VAR)`` expansion in env values, command
and args; the command line from ENTRYPOINT/CMD and ``command``/``args``; the request an ``httpGet`` probe
sends (to the pod IP unless ``host`` is set, with ``Host: <host>:<port>`` unless ``httpHeaders`` names
one; success is a status from 200 to 399).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "ProbeRequest",
    "command_line",
    "container_env",
    "expand",
    "find",
    "load_documents",
    "pod_containers",
    "probe_request",
    "probe_succeeded",
]

Doc = dict[str, Any]
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def load_documents(paths: Iterable[Path]) -> list[Doc]:
    """Every non-empty YAML document of ``paths``."""
    docs: list[Doc] = []
    for path in paths:
        docs.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    return docs


def find(docs: Iterable[Doc], kind: str, name: str | None = None) -> Doc:
    """The one document of ``kind`` (and ``name``); AssertionError naming what was there otherwise."""
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def pod_containers(pod_spec: Doc) -> dict[str, Doc]:
    """Init and regular containers of a pod spec by name, init containers first, in order."""
    return {c["name"]: c for c in [*pod_spec.get("initContainers", []), *pod_spec["containers"]]}


def expand(value: str, env: Mapping[str, str]) -> str:
    """Kubernetes' ``$(VAR)`` expansion: a defined VAR is replaced, ``$$`` is ``$``, the rest is kept."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return "$"
        return env.get(name, match.group(0))

    return _REFERENCE.sub(one, value)


def container_env(
    container: Doc, *, secrets: Mapping[str, Mapping[str, str]], fields: Mapping[str, str]
) -> dict[str, str]:
    """The container's environment from its ``env`` list, in order, each value expanded against the ones
    before it; ``secretKeyRef`` from ``secrets`` (Secret name -> key -> value), ``fieldRef`` from ``fields``
    (``metadata.name``, ``status.podIP``, ...)."""
    env: dict[str, str] = {}
    for item in container.get("env", []):
        source = item.get("valueFrom")
        if source is None:
            env[item["name"]] = expand(item.get("value", ""), env)
        elif "secretKeyRef" in source:
            ref = source["secretKeyRef"]
            env[item["name"]] = secrets[ref["name"]][ref["key"]]
        elif "fieldRef" in source:
            env[item["name"]] = fields[source["fieldRef"]["fieldPath"]]
        else:
            raise AssertionError(f"env {item['name']}: unsupported source {sorted(source)}")
    return env


def command_line(container: Doc, entrypoint: list[str], cmd: list[str], env: Mapping[str, str]) -> list[str]:
    """What the runtime executes: ``command`` replaces ENTRYPOINT (and drops CMD), ``args`` replaces CMD;
    ``$(VAR)`` expanded in both."""
    if "command" in container:
        argv = [*container["command"], *container.get("args", [])]
    elif "args" in container:
        argv = [*entrypoint, *container["args"]]
    else:
        argv = [*entrypoint, *cmd]
    return [expand(part, env) for part in argv]


@dataclass(frozen=True)
class ProbeRequest:
    """The HTTP request the kubelet sends for an ``httpGet`` probe."""

    url: str
    headers: dict[str, str]
    timeout_s: float


def _port(value: int | str, container: Doc) -> int:
    if isinstance(value, int):
        return value
    if value.isdigit():
        return int(value)
    named = [p["containerPort"] for p in container.get("ports", []) if p.get("name") == value]
    assert named, f"probe port {value!r} is not a named port of container {container['name']}"
    return int(named[0])


def probe_request(probe: Doc, container: Doc, pod_ip: str) -> ProbeRequest:
    """The request for ``probe`` (an ``httpGet`` probe of ``container``) on a pod at ``pod_ip``."""
    assert "httpGet" in probe, f"not an httpGet probe: {sorted(probe)}"
    get = probe["httpGet"]
    host = get.get("host", pod_ip)
    port = _port(get["port"], container)
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    headers = {"Host": authority, "User-Agent": "kube-probe/1.37", "Accept": "*/*"}
    for header in get.get("httpHeaders", []):
        name = next((key for key in headers if key.lower() == header["name"].lower()), header["name"])
        headers[name] = header["value"]
    scheme = get.get("scheme", "HTTP").lower()
    return ProbeRequest(
        f"{scheme}://{authority}{get.get('path', '/')}", headers, probe.get("timeoutSeconds", 1)
    )


def probe_succeeded(status: int) -> bool:
    """The kubelet's rule for an HTTP probe."""
    return 200 <= status < 400
