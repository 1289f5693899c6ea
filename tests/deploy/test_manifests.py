"""The Kubernetes manifests in deploy/k8s, offline: valid for the API versions they claim, and shaped as a
platform team needs them (native sidecar, probes, Secrets, stable identity, restricted security context).

Validation uses the OpenAPI schemas that ``kubernetes-validate`` ships, in strict mode (unknown fields
are errors), for 1.29 (the first release with native sidecars on by default) and the newest it knows.
"""

from __future__ import annotations

import os
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from guard.edge.door import check_exposure
from guard.settings import load_settings
from tests.deploy import kube
from tests.deploy.conftest import K8S

VERSIONS = ("1.29.0", kubernetes_validate.latest_version())
FIELDS = {"metadata.name": "support-agent-0", "metadata.namespace": "agents", "status.podIP": "10.1.2.3"}


def _statefulset_spec(docs: list[kube.Doc]) -> kube.Doc:
    spec: kube.Doc = kube.find(docs, "StatefulSet")["spec"]["template"]["spec"]
    return spec


def _guard_containers(spec: kube.Doc) -> list[kube.Doc]:
    image = "/guard:"
    return [c for c in kube.pod_containers(spec).values() if image in c["image"]]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", sorted(K8S.glob("*.yaml")), ids=lambda p: p.name)
def test_every_manifest_is_valid_kubernetes(path: Path, version: str) -> None:
    """Requirement G31: every resource in deploy/k8s validates, strictly, against the Kubernetes schemas."""
    docs = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    assert docs, f"{path.name} holds no resource"
    for doc in docs:
        kubernetes_validate.validate(doc, version, strict=True)


def test_validation_rejects_a_native_sidecar_before_kubernetes_has_them(k8s_docs: list[kube.Doc]) -> None:
    """The validation above has teeth: 1.27's schema has no restartPolicy on a container."""
    with pytest.raises(kubernetes_validate.ValidationError, match="restartPolicy"):
        kubernetes_validate.validate(kube.find(k8s_docs, "StatefulSet"), "1.27.0", strict=True)


def test_guard_is_a_native_sidecar_the_agent_reaches_over_loopback(k8s_docs: list[kube.Doc]) -> None:
    """Requirement G31: migrations run first, then the guard as a sidecar (restartPolicy: Always) with
    startup, readiness and liveness probes, then the agent, which is pointed at the guard's port on the
    pod's loopback."""
    spec = _statefulset_spec(k8s_docs)
    init = spec["initContainers"]
    names = [c["name"] for c in init]
    migrate = next(c for c in init if "upgrade" in c.get("args", []))
    guard = next(c for c in init if c.get("restartPolicy") == "Always")
    assert names.index(migrate["name"]) < names.index(guard["name"])
    assert migrate.get("restartPolicy") is None
    assert migrate["args"][:2] == ["db", "upgrade"]
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert "httpGet" in guard[kind], kind
    assert guard["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert guard["livenessProbe"]["httpGet"]["path"] == "/healthz"
    startup = guard["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 30, "start-up takes seconds"
    (port,) = [p["containerPort"] for p in guard["ports"]]
    agent_env = kube.container_env(
        spec["containers"][0], secrets={"guard-secrets": _secret(k8s_docs)}, fields=FIELDS
    )
    assert agent_env["MCP_URL"] == f"http://127.0.0.1:{port}/mcp"


def _secret(docs: list[kube.Doc]) -> dict[str, str]:
    data: dict[str, str] = kube.find(docs, "Secret", "guard-secrets")["stringData"]
    return data


def test_tokens_and_database_urls_come_from_the_secret(
    k8s_docs: list[kube.Doc], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirement G31: no token or database URL is written in the ConfigMap or the pod spec; each comes
    from the Secret by reference, the settings the guard reads from them serve a non-loopback bind, and
    the agent's token is the one the guard accepts."""
    text = kube.find(k8s_docs, "ConfigMap", "guard-config")["data"]["guard.yaml"]
    config = yaml.safe_load(text)
    assert "auth" not in config
    assert "url" not in config.get("backend", {})
    assert "url" not in (config.get("audit") or {})
    secret = _secret(k8s_docs)
    spec = _statefulset_spec(k8s_docs)
    for container in kube.pod_containers(spec).values():
        for item in container.get("env", []):
            if "value" in item:
                assert not any(value in item["value"] for value in secret.values()), item
    guard = next(c for c in spec["initContainers"] if c.get("restartPolicy") == "Always")
    env = kube.container_env(guard, secrets={"guard-secrets": secret}, fields=FIELDS)
    agent = kube.container_env(spec["containers"][0], secrets={"guard-secrets": secret}, fields=FIELDS)
    for name in [n for n in os.environ if n.startswith("GUARD_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "guard.yaml").write_text(text)
    settings = load_settings(tmp_path / "guard.yaml")
    assert settings.backend.url == secret["backend-url"]
    assert settings.audit.url == secret["audit-url"]
    assert set(settings.auth.agent_tokens) == {agent["MCP_TOKEN"]}
    assert settings.auth.operator_tokens == [secret["operator-token"]]
    assert settings.server.host == "0.0.0.0"
    check_exposure(settings)  # a non-loopback bind with both token sets: allowed


def test_instance_name_is_stable_and_unique_per_pod(k8s_docs: list[kube.Doc]) -> None:
    """Requirements G23, G31: the guard's instance name is <namespace>.<pod name> of a StatefulSet (stable
    across restarts and reschedules, unique among live pods), never a Deployment's generated pod name."""
    assert not [d for d in k8s_docs if d["kind"] in ("Deployment", "ReplicaSet", "DaemonSet", "Pod")]
    spec = _statefulset_spec(k8s_docs)
    guard = next(c for c in spec["initContainers"] if c.get("restartPolicy") == "Always")
    env = kube.container_env(guard, secrets={"guard-secrets": _secret(k8s_docs)}, fields=FIELDS)
    assert env["GUARD_SERVER__INSTANCE"] == "agents.support-agent-0"
    assert kube.find(k8s_docs, "StatefulSet")["spec"]["podManagementPolicy"] == "OrderedReady"


def test_every_container_is_restricted_and_bounded(k8s_docs: list[kube.Doc]) -> None:
    """Requirement G31: the pod runs as a non-root user under the RuntimeDefault seccomp profile; every
    container has no privilege escalation, no capabilities, a read-only root file system, and resource
    requests and limits; the guard's writable /tmp is an emptyDir."""
    spec = _statefulset_spec(k8s_docs)
    pod = spec["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert pod["runAsUser"] != 0
    assert pod["seccompProfile"] == {"type": "RuntimeDefault"}
    assert spec["automountServiceAccountToken"] is False
    for container in kube.pod_containers(spec).values():
        context = container["securityContext"]
        assert context["allowPrivilegeEscalation"] is False, container["name"]
        assert context["readOnlyRootFilesystem"] is True, container["name"]
        assert context["capabilities"]["drop"] == ["ALL"], container["name"]
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]), container["name"]
        assert "memory" in container["resources"]["limits"], container["name"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    for container in _guard_containers(spec):
        tmp = [m for m in container["volumeMounts"] if m["mountPath"] == "/tmp"]
        assert tmp, container["name"]
        assert "emptyDir" in volumes[tmp[0]["name"]], container["name"]


def test_nothing_outside_the_pod_may_connect(k8s_docs: list[kube.Doc]) -> None:
    """Requirement G31: a NetworkPolicy admits no ingress to the agent's pods (the kubelet's probes come
    from the node), and the headless Service publishes no port."""
    policy = kube.find(k8s_docs, "NetworkPolicy")
    labels = kube.find(k8s_docs, "StatefulSet")["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= labels.items()
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert not policy["spec"].get("ingress")
    service = kube.find(k8s_docs, "Service")
    assert service["spec"]["clusterIP"] == "None"
    assert not service["spec"].get("ports")


def test_the_operator_has_a_way_in_that_opens_nothing_to_the_network(k8s_docs: list[kube.Doc]) -> None:
    """Requirement G56: the sidecar's manifest names the operator's way in (a port-forward to the guard's
    port, through the API server), the guard's config points held commits at that address, and still no
    ingress is admitted."""
    text = (K8S / "support-agent.yaml").read_text()
    assert "kubectl -n agents port-forward pod/support-agent-0 8765:8765" in text
    config = yaml.safe_load(kube.find(k8s_docs, "ConfigMap")["data"]["guard.yaml"])
    assert config["server"]["port"] == 8765
    assert config["console"]["public_url"] == "http://127.0.0.1:8765"
    assert config["console"].get("enabled", True) is True
    assert _guard_containers(_statefulset_spec(k8s_docs)), "the guard runs in the pod it forwards to"
    assert not kube.find(k8s_docs, "NetworkPolicy")["spec"].get("ingress")
    replicas = (K8S / "replicas" / "guard-replicas.yaml").read_text()
    assert "kubectl port-forward pod/guard-replicas-0 8765" in replicas
