"""The replicas' deployment offline: HAProxy's reference config, the Kubernetes replicas, compose's replicas.

Each routes by the transaction key with consistent hashing and checks replicas on /readyz with a Host the
guard accepts (Requirement G33: the balancer's half of "a transaction's requests reach its replica").
``haproxy -c`` parses the config as HAProxy will (``GUARD_REQUIRE_HAPROXY=1`` turns its skip into a
failure); the Kubernetes manifests validate strictly with ``kubernetes-validate``; the compose file by the
Compose Specification's schema and as ``docker-compose config`` resolves it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from guard.edge.door import host_policy
from guard.settings import GuardSettings, load_settings
from tests.conftest import _missing
from tests.deploy import kube
from tests.deploy.conftest import DEPLOY, K8S, clean_env, require_compose

HAPROXY_CFG = DEPLOY / "haproxy" / "haproxy.cfg"
REPLICAS_K8S = K8S / "replicas" / "guard-replicas.yaml"
COMPOSE = DEPLOY / "compose.replicas.yaml"
INPUTS = {"POSTGRES_PASSWORD": "pw-1", "GUARD_AGENT_TOKEN": "agent-1", "GUARD_OPERATOR_TOKEN": "operator-1"}


def _directives(section: str) -> list[str]:
    """The lines of one HAProxy section (``frontend mcp``, ``backend guards``), without comments."""
    lines: list[str] = []
    inside = False
    for raw in HAPROXY_CFG.read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if line and not line[0].isspace():
            inside = line.strip() == section
            continue
        if inside and line.strip():
            lines.append(line.strip())
    return lines


def test_haproxy_config_parses(tmp_path: Path) -> None:
    """Requirement G33: HAProxy accepts the reference config (and refuses a broken one: the check bites)."""
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        _missing("haproxy", "not on PATH (Debian: apt-get install haproxy)", "GUARD_REQUIRE_HAPROXY")
    assert haproxy is not None
    done = subprocess.run(
        [haproxy, "-c", "-f", str(HAPROXY_CFG)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(HAPROXY_CFG.read_text().replace("hash-type consistent", "hash-type sometimes"))
    refused = subprocess.run([haproxy, "-c", "-f", str(broken)], capture_output=True, text=True, check=False)
    assert refused.returncode != 0


def test_haproxy_routes_by_the_transaction_key_with_consistent_hashing() -> None:
    """Requirement G33: the key is the Guard-Transaction header, else the id in /mcp/t/<id>; the hash is
    consistent and sticky; the health check is /readyz with a Host every guard accepts by default."""
    frontend = _directives("frontend mcp")
    assert "http-request set-var(txn.guard_key) req.hdr(guard-transaction)" in frontend
    by_path = next(line for line in frontend if "path,field(4,/)" in line)
    assert "!{ var(txn.guard_key) -m found }" in by_path
    assert "{ path_beg /mcp/t/ }" in by_path
    assert "http-request set-var(txn.guard_key) src if { path_beg /console }" in frontend, (
        "Requirement G34: a console session lives in one replica, so the console is routed by client address"
    )
    assert "option forwardfor" in frontend
    by_admin = next(line for line in frontend if "path,field(3,/)" in line)
    assert "{ path_beg /transactions/ }" in by_admin, "Requirement G56: an approval reaches the holder"
    assert "!{ var(txn.guard_key) -m found }" in by_admin
    backend = _directives("backend guards")
    assert "balance hash var(txn.guard_key)" in backend
    assert "hash-type consistent" in backend
    assert "stick on var(txn.guard_key)" in backend
    check = next(line for line in backend if line.startswith("http-check send"))
    assert "uri /readyz" in check
    host = re.search(r"hdr Host (\S+)", check)
    assert host is not None
    assert host_policy(GuardSettings().server).refusal(host.group(1), None) is None
    assert "_meta" in HAPROXY_CFG.read_text()  # the comment says the body's key is not routable


@pytest.mark.parametrize("version", ["1.29.0", kubernetes_validate.latest_version()])
def test_kubernetes_replicas_are_valid(version: str) -> None:
    """The replicas' manifests validate strictly against the Kubernetes schemas."""
    for doc in kube.load_documents([REPLICAS_K8S]):
        kubernetes_validate.validate(doc, version, strict=True)


def test_kubernetes_ingress_hashes_on_the_key_and_routes_to_ready_replicas() -> None:
    """Requirement G33: ingress-nginx hashes on the header plus the URI (the path carries /mcp/t/<id>) over
    the Service of a StatefulSet whose pods each have their own instance name and a /readyz probe."""
    docs = kube.load_documents([REPLICAS_K8S])
    ingress = kube.find(docs, "Ingress")
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/upstream-hash-by"] == (
        "$http_guard_transaction$uri"
    )
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    service = kube.find(docs, "Service", backend["name"])
    statefulset = kube.find(docs, "StatefulSet")
    assert service["spec"]["selector"] == statefulset["spec"]["selector"]["matchLabels"]
    guard = statefulset["spec"]["template"]["spec"]["containers"][0]
    secrets = {
        "guard-secrets": dict.fromkeys(("agent-token", "operator-token", "backend-url", "audit-url"), "x")
    }
    fields = {"metadata.name": "guard-replicas-1", "metadata.namespace": "agents"}
    env = kube.container_env(guard, secrets=secrets, fields=fields)
    assert env["GUARD_SERVER__INSTANCE"] == "agents.guard-replicas-1"
    probe = guard["readinessProbe"]["httpGet"]
    assert probe["path"] == "/readyz"
    config = yaml.safe_load(kube.find(docs, "ConfigMap")["data"]["guard.yaml"])
    hosts = config["server"]["allowed_hosts"]
    assert probe["httpHeaders"] == [{"name": "Host", "value": "localhost"}]
    assert "localhost" in hosts
    assert ingress["spec"]["rules"][0]["host"] in hosts


def _compose_config(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    files = ["--project-directory", str(DEPLOY), "--env-file", str(env_file), "-f", str(COMPOSE)]
    return subprocess.run(
        [require_compose(), *files, "config"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean_env(), **INPUTS},
        check=False,
    )


def test_compose_replicas_match_the_compose_specification() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_puts_haproxy_in_front_of_replicas_with_their_own_names(tmp_path: Path) -> None:
    """Requirement G33: HAProxy (published on the host's loopback only) with the reference config in front of
    the guard services its server lines name, each replica under its own instance name, accepting the Host
    that clients send through HAProxy and the one its health check sends."""
    done = _compose_config(tmp_path)
    assert done.returncode == 0, done.stderr
    services = yaml.safe_load(done.stdout)["services"]
    haproxy = services["haproxy"]
    assert all(str(port).startswith("127.0.0.1:") for port in haproxy["ports"])
    source, target, mode = str(haproxy["volumes"][0]).split(":")  # docker-compose v1 writes src:dst:mode
    assert Path(source) == HAPROXY_CFG
    assert (target, mode) == ("/usr/local/etc/haproxy/haproxy.cfg", "ro")
    servers = re.findall(r"^\s*server (\S+) (\S+):8765", HAPROXY_CFG.read_text(), flags=re.MULTILINE)
    assert [name for name, _ in servers] == [address for _, address in servers]
    instances = []
    for name, _ in servers:
        environment = services[name]["environment"]
        instances.append(environment["GUARD_SERVER__INSTANCE"])
        hosts = json.loads(environment["GUARD_SERVER__ALLOWED_HOSTS"])
        assert {"haproxy", "localhost"} <= set(hosts)
        assert services[name]["read_only"] is True
    assert len(set(instances)) == len(servers) == 3
    settings = load_settings(DEPLOY / "guard.compose.yaml")
    assert settings.backend.module == "guard.demo.backend"
