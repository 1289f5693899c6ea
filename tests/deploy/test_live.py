"""The containers as the manifests run them, in a pod network on this machine.

Each container runs its exact command line (the Dockerfile's ENTRYPOINT and CMD as the manifest's
``args``/``command`` change them), its exact config (the ConfigMap's file, the compose file's) and its
exact environment (``$(VAR)`` expanded, Secret keys and pod fields filled in), from the production wheel,
under its security context (read-only root, no capabilities, no new privileges), in its own network
namespace whose address is not loopback. What the cluster would supply is played by the test: the
Secret's database URLs name the test PostgreSQL's user and a fresh database (their host and port stay,
and resolve in the pod to a relay to the test server), and the collector is a sink that answers 200.

The kubelet's probes are sent as the kubelet sends them: to the pod IP and the probe's port, with the
probe's headers.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
import yaml
from sqlalchemy.engine import make_url

from tests.conftest import ROOT
from tests.deploy import compose, kube
from tests.deploy.agent import one_transaction
from tests.deploy.conftest import DEPLOY, Installed, clean_env, make_pod, postgres_target
from tests.deploy.dockerfile import Image
from tests.deploy.pod import Collector, Confinement, Forwarder, Pod, pod_network

POD_FIELDS = {"metadata.name": "support-agent-0", "metadata.namespace": "agents"}
TEST_TOKENS = {"GUARD_AGENT_TOKEN": "compose-agent-token", "GUARD_OPERATOR_TOKEN": "compose-operator-token"}


@dataclass
class Running:
    """A container started in a pod, with what the tests need to talk to it."""

    pod: Pod
    process: subprocess.Popen[bytes]
    log: Path
    env: dict[str, str]
    confinement: Confinement
    cwd: str
    collector: Collector

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, grace_s: float) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        return self.process.returncode


def _start(
    pod: Pod,
    argv: list[str],
    env: Mapping[str, str],
    confinement: Confinement,
    cwd: str,
    image: Image,
    log: Path,
) -> subprocess.Popen[bytes]:
    with log.open("ab") as sink:
        return subprocess.Popen(
            pod.argv(argv, confinement, cwd),
            env=pod.environment(env, image.env),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def _run(
    pod: Pod, argv: list[str], env: Mapping[str, str], confinement: Confinement, cwd: str, image: Image
) -> str:
    done = subprocess.run(
        pod.argv(argv, confinement, cwd),
        env=pod.environment(env, image.env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}: {done.stderr}{done.stdout}"
    return done.stdout


def _get(request: kube.ProbeRequest) -> int | None:
    try:
        return httpx2.get(request.url, headers=request.headers, timeout=request.timeout_s).status_code
    except httpx2.TransportError:
        return None


def _wait_started(
    process: subprocess.Popen[bytes], probe: Mapping[str, Any], request: kube.ProbeRequest, output: Any
) -> None:
    """Poll ``probe`` as the kubelet would until it succeeds, within the time the kubelet would allow."""
    budget = probe.get("initialDelaySeconds", 0) + probe.get("periodSeconds", 10) * probe.get(
        "failureThreshold", 3
    )
    deadline = time.monotonic() + budget
    while True:
        assert process.poll() is None, f"the container exited {process.returncode}:\n{output()}"
        status = _get(request)
        if status is not None and kube.probe_succeeded(status):
            return
        assert time.monotonic() < deadline, (
            f"startupProbe failed for {budget} s (last: {status}):\n{output()}"
        )
        time.sleep(0.1)


# -- Kubernetes --------------------------------------------------------------------------------------


@dataclass
class Sidecar:
    running: Running
    container: kube.Doc
    agent: kube.Doc
    spec: kube.Doc
    secrets: dict[str, dict[str, str]]

    def probe(self, kind: str) -> kube.ProbeRequest:
        return kube.probe_request(self.container[kind], self.container, self.running.pod.network.pod_ip)


def _k8s_secret(docs: list[kube.Doc], postgres_url: str, database: str) -> dict[str, str]:
    secret = dict(kube.find(docs, "Secret", "guard-secrets")["stringData"])
    server = make_url(postgres_url)
    for key in ("backend-url", "audit-url"):
        url = make_url(secret[key]).set(username=server.username, password=None, database=database)
        secret[key] = url.render_as_string(hide_password=False)
    return secret


def _mount_volumes(pod: Pod, spec: kube.Doc, container: kube.Doc, docs: list[kube.Doc]) -> None:
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        target = Path(pod.path(mount["mountPath"]))
        target.mkdir(parents=True, exist_ok=True)
        if "configMap" in volume:
            data = kube.find(docs, "ConfigMap", volume["configMap"]["name"])["data"]
            for key, text in data.items():
                (target / key).write_text(text)
        elif "emptyDir" in volume and mount["mountPath"] not in pod.writable:
            pod.writable.append(mount["mountPath"])


def _cluster_names(docs: list[kube.Doc], secret: Mapping[str, str]) -> tuple[str, tuple[str, int]]:
    config = yaml.safe_load(kube.find(docs, "ConfigMap", "guard-config")["data"]["guard.yaml"])
    endpoint = urlsplit(config["telemetry"]["otlp_endpoint"])
    database = make_url(secret["audit-url"])
    assert make_url(secret["backend-url"]).host == database.host
    assert endpoint.hostname is not None
    return database.host or "", (endpoint.hostname, endpoint.port or 80)


@pytest.fixture(scope="module")
def sidecar(
    k8s_docs: list[kube.Doc],
    image: Image,
    installed: Installed,
    network_available: None,
    postgres_url: str,
    fresh_database: Callable[[], str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Sidecar]:
    """The StatefulSet's pod 0 with its init containers run in order, up to the guard sidecar's start."""
    spec = kube.find(k8s_docs, "StatefulSet")["spec"]["template"]["spec"]
    secret = _k8s_secret(k8s_docs, postgres_url, fresh_database())
    db_host, (collector_host, collector_port) = _cluster_names(k8s_docs, secret)
    db_port = make_url(secret["audit-url"]).port or 5432
    base = tmp_path_factory.mktemp("k8s")
    with (
        pod_network([db_host, collector_host]) as network,
        Forwarder((network.node_ip, db_port), postgres_target(postgres_url)),
        Collector((network.node_ip, collector_port)) as collector,
    ):
        pod = make_pod(network, installed, base)
        fields = {**POD_FIELDS, "status.podIP": network.pod_ip}
        secrets = {"guard-secrets": secret}
        sidecar: Sidecar | None = None
        for container in spec["initContainers"]:
            _mount_volumes(pod, spec, container, k8s_docs)
            env = kube.container_env(container, secrets=secrets, fields=fields)
            argv = kube.command_line(container, image.entrypoint, image.cmd, env)
            cwd = container.get("workingDir", image.workdir)
            confinement = Confinement.of(container)
            if container.get("restartPolicy") != "Always":
                _run(pod, argv, env, confinement, cwd, image)
                continue
            log = base / f"{container['name']}.log"
            process = _start(pod, argv, env, confinement, cwd, image, log)
            running = Running(pod, process, log, env, confinement, cwd, collector)
            agent = spec["containers"][0]
            sidecar = Sidecar(running, container, agent, spec, secrets)
            _wait_started(process, container["startupProbe"], sidecar.probe("startupProbe"), running.output)
            break
        assert sidecar is not None, "no init container with restartPolicy: Always (a native sidecar)"
        try:
            yield sidecar
        finally:
            sidecar.running.stop(spec.get("terminationGracePeriodSeconds", 30))


def test_sidecar_probes_pass_on_the_pod_ip_with_tokens_on(sidecar: Sidecar) -> None:
    """Requirements G18, G29, G31: the kubelet's startup, readiness and liveness probes, sent to the pod IP
    as the manifest defines them, succeed against the guard serving with both token sets."""
    assert sidecar.running.env["GUARD_AUTH__AGENT_TOKENS"]
    assert sidecar.running.env["GUARD_AUTH__OPERATOR_TOKENS"]
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        request = sidecar.probe(kind)
        assert request.url.startswith(f"http://{sidecar.running.pod.network.pod_ip}:")
        status = _get(request)
        assert status is not None, f"{kind}: {request} -> no answer"
        assert kube.probe_succeeded(status), f"{kind}: {request} -> {status}"
    ready = httpx2.get(sidecar.probe("readinessProbe").url, headers=sidecar.probe("readinessProbe").headers)
    assert ready.json() == {"status": "ready", "problems": {}}


def test_sidecar_refuses_what_the_probes_and_the_agent_do_not_send(sidecar: Sidecar) -> None:
    """Requirement G18: on the pod IP the guard refuses a Host it does not know and calls without tokens."""
    readiness = sidecar.probe("readinessProbe")
    base = readiness.url.rsplit("/", 1)[0]
    kubelet_default = {"Host": base.removeprefix("http://")}
    assert httpx2.get(readiness.url, headers=kubelet_default).status_code == 421
    allowed = {"Host": readiness.headers["Host"]}
    assert httpx2.post(f"{base}/mcp", headers=allowed, json={}).status_code == 401
    assert httpx2.get(f"{base}/transactions", headers=allowed).status_code == 401
    operator = sidecar.secrets["guard-secrets"]["operator-token"]
    listed = httpx2.get(f"{base}/transactions", headers={**allowed, "Authorization": f"Bearer {operator}"})
    assert listed.status_code == 200


def test_agent_container_commits_through_the_sidecar_under_a_stable_instance_name(sidecar: Sidecar) -> None:
    """Requirements G2, G31: the agent container, with the URL and token the manifest gives it, commits a
    transaction over the pod's loopback; the audit log records it under <namespace>.<pod name>."""
    env = kube.container_env(sidecar.agent, secrets=sidecar.secrets, fields=POD_FIELDS)
    network = sidecar.running.pod.network
    done = subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            network.name,
            sys.executable,
            "-m",
            "tests.deploy.agent",
            env["MCP_URL"],
            env["MCP_TOKEN"],
        ],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"get_ticket", "update_ticket", "guard_commit"} <= set(result["tools"])
    assert result["commit"]["status"] == "committed", result
    readiness = sidecar.probe("readinessProbe")
    operator = sidecar.secrets["guard-secrets"]["operator-token"]
    listed = httpx2.get(
        readiness.url.rsplit("/", 1)[0] + "/transactions",
        headers={"Host": readiness.headers["Host"], "Authorization": f"Bearer {operator}"},
    ).json()["transactions"]
    assert {record["instance"] for record in listed} == {"agents.support-agent-0"}


def test_image_healthcheck_asks_where_the_settings_say(sidecar: Sidecar, image: Image) -> None:
    """Requirement G31: the image's HEALTHCHECK, run in the container, finds the guard by its settings: it
    passes as configured, and fails when GUARD_SERVER__PORT moves the port it looks at."""
    running = sidecar.running
    assert running.pod.path(image.healthcheck[1]) != image.healthcheck[1], (
        "HEALTHCHECK runs a file of the image"
    )
    _run(running.pod, image.healthcheck, running.env, running.confinement, running.cwd, image)
    moved = {**running.env, "GUARD_SERVER__PORT": "8799"}
    done = subprocess.run(
        running.pod.argv(image.healthcheck, running.confinement, running.cwd),
        env=running.pod.environment(moved, image.env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert ":8799/healthz" in done.stderr


def test_sidecar_stops_on_sigterm_after_exporting_its_spans(sidecar: Sidecar) -> None:
    """Requirement G31: SIGTERM stops the sidecar with exit code 0, and its spans reached the collector
    the ConfigMap names."""
    code = sidecar.running.stop(sidecar.spec.get("terminationGracePeriodSeconds", 30))
    assert code == 0, sidecar.running.output()
    assert sidecar.running.collector.posts, "no OTLP export reached the collector"


# -- compose -----------------------------------------------------------------------------------------


@dataclass
class ComposeGuard:
    running: Running
    service: dict[str, Any]
    tokens: dict[str, str]

    def url(self, path: str) -> str:
        port = self.service["ports"][0].rsplit(":", 1)[1]
        return f"http://{self.running.pod.network.pod_ip}:{port}{path}"


def _compose_env(service: Mapping[str, Any], postgres_url: str, database: str) -> dict[str, str]:
    env = {key: str(value) for key, value in service.get("environment", {}).items()}
    server = make_url(postgres_url)
    for key in ("GUARD_BACKEND__URL", "GUARD_AUDIT__URL"):
        if key in env:
            url = make_url(env[key]).set(username=server.username, password=None, database=database)
            env[key] = url.render_as_string(hide_password=False)
    return env


def _compose_files(pod: Pod, service: Mapping[str, Any]) -> None:
    for volume in service.get("volumes", []):
        source, target = volume.split(":")[:2]
        destination = Path(pod.path(target))
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text((DEPLOY / source).read_text())
    for folder in service.get("tmpfs", []):
        Path(pod.path(folder)).mkdir(parents=True, exist_ok=True)
        if folder not in pod.writable:
            pod.writable.append(folder)


@pytest.fixture(scope="module")
def compose_guard(
    image: Image,
    installed: Installed,
    network_available: None,
    postgres_url: str,
    fresh_database: Callable[[], str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ComposeGuard]:
    """compose's migrate then guard services, in the guard container's network namespace."""
    inputs = {"POSTGRES_PASSWORD": "compose-password", **TEST_TOKENS}
    database_name = fresh_database()
    services = compose.load(DEPLOY / "compose.yaml", inputs)["services"]
    guard, migrate = services["guard"], services["migrate"]
    env = _compose_env(guard, postgres_url, database_name)
    database = make_url(env["GUARD_AUDIT__URL"])
    collector = urlsplit(env["GUARD_TELEMETRY__OTLP_ENDPOINT"])
    base = tmp_path_factory.mktemp("compose")
    with (
        pod_network([database.host or "", collector.hostname or ""]) as network,
        Forwarder((network.node_ip, database.port or 5432), postgres_target(postgres_url)),
        Collector((network.node_ip, collector.port or 80)) as sink,
    ):
        pod = make_pod(network, installed, base)
        for service in (migrate, guard):
            _compose_files(pod, service)
        migrate_argv = [*image.entrypoint, *migrate["command"]]
        _run(
            pod,
            migrate_argv,
            _compose_env(migrate, postgres_url, database_name),
            compose.confinement(migrate),
            image.workdir,
            image,
        )
        log = base / "guard.log"
        confinement = compose.confinement(guard)
        process = _start(
            pod, [*image.entrypoint, *guard["command"]], env, confinement, image.workdir, image, log
        )
        running = Running(pod, process, log, env, confinement, image.workdir, sink)
        handle = ComposeGuard(running, guard, TEST_TOKENS)
        probe = {"periodSeconds": 1, "failureThreshold": 60}
        request = kube.ProbeRequest(handle.url("/healthz"), {"Host": "guard"}, 2)
        _wait_started(process, probe, request, running.output)
        try:
            yield handle
        finally:
            running.stop(30)


async def test_compose_guard_serves_other_containers_by_name_with_tokens(compose_guard: ComposeGuard) -> None:
    """Requirements G2, G18, G31: as compose runs it, the guard answers containers that call it by its
    service name, with the tokens from the environment, on a non-loopback address; and refuses others."""
    port = compose_guard.url("").rsplit(":", 1)[1]
    by_name = {"Host": f"guard:{port}"}
    assert httpx2.get(compose_guard.url("/healthz"), headers=by_name).status_code == 200
    assert httpx2.get(compose_guard.url("/readyz"), headers=by_name).json()["status"] == "ready"
    published = {"Host": f"127.0.0.1:{port}"}  # what the host's loopback port forwards
    assert httpx2.get(compose_guard.url("/healthz"), headers=published).status_code == 200
    pod_ip = {"Host": compose_guard.url("").removeprefix("http://")}
    assert httpx2.get(compose_guard.url("/healthz"), headers=pod_ip).status_code == 421
    assert httpx2.post(compose_guard.url("/mcp"), headers=by_name, json={}).status_code == 401
    token = compose_guard.tokens["GUARD_AGENT_TOKEN"]
    result = await one_transaction(compose_guard.url("/mcp"), token, by_name["Host"])
    assert result["commit"]["status"] == "committed", result


def test_compose_guard_is_healthy_by_the_image_healthcheck(compose_guard: ComposeGuard, image: Image) -> None:
    """Requirement G31: the image's HEALTHCHECK passes in the compose service's container."""
    running = compose_guard.running
    _run(running.pod, image.healthcheck, running.env, running.confinement, running.cwd, image)
    assert running.stop(30) == 0, running.output()
