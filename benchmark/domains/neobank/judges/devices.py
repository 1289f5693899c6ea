"""Devices handed over or ordered against the hardware policy: replacements, approvals, lead times.

For every device assignment and procurement order the transaction creates (§9):

* ``device-laptop-replacement`` — a laptop is assigned as a replacement,
  the employee's old laptop retired in the same transaction (§9.6 step 4,
  §9.8); laptops for new employees go to IT Operations (§1.1);
* ``device-approval`` — a monitor, docking station or premium laptop is
  auto-approved only as §9.2–§9.4 say (Executive & Leadership; a remote
  employee; a technical role in an office, for monitors; the replacement
  of a failed device); otherwise an approved hardware purchase request of
  the employee comes first. "Currently has zero monitors" needs the
  employee's other devices, two lookups away, and is taken as given;
* ``device-retired-replaced`` — a device is retired as the old one of a
  replacement: the holder gets a device of its type, from stock or ordered,
  in the same transaction (§9.6 step 4, §9.8);
* ``order-lead-time`` — an order's expected delivery is the policy's lead
  time from today: 10 business days for laptops and monitors, 5 for
  accessories (§9.7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from benchmark.domains.neobank.judges.links import Commit, Links, Work, link_queries
from benchmark.domains.neobank.judges.policy import add_business_days, lead_time_days
from judges import CommitContext, Effect, Finding, Query, Severity, StateSnapshot, Verdict, commit_time

__all__ = ["DeviceJudge"]

Row = Mapping[str, Any]

_TECHNICAL = ("Developer", "Engineer", "DevOps", "SRE", "DBA", "Database Administrator", "Data Engineer")
_LAPTOPS = ("laptop_standard", "laptop_premium")
_NEEDS_CASE = ("monitor", "docking_station", "laptop_premium")


def _retired(commit: Commit, employee_id: str, device_types: Sequence[str]) -> list[str]:
    """Devices of ``device_types`` the transaction retired whose assignment to the employee it closed."""
    closed = {
        str((e.after or {}).get("asset_id"))
        for e in commit.updated("asset_assignments")
        if (e.before or {}).get("is_active")
        and not (e.after or {}).get("is_active")
        and (e.after or {}).get("employee_id") == employee_id
    }
    return [
        e.key_text
        for e in commit.updated("hardware_assets")
        if (e.after or {}).get("condition") == "retired"
        and (e.before or {}).get("condition") != "retired"
        and (e.after or {}).get("device_type") in device_types
        and e.key_text in closed
    ]


@dataclass(frozen=True, slots=True)
class DeviceJudge:
    """Device assignments and hardware orders against §9 (see the module docstring)."""

    name: str = "neobank_devices"

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        commit = Commit(effects)
        devices = [w for w in commit.work if w.kind in ("device", "order")]
        if not devices:
            return []
        queries = link_queries(commit)
        queries += [
            Query.of("approval_requests", None, requester_id=e)
            for e in sorted({w.employee_id for w in devices})
        ]
        assets = {str((w.effect.after or {}).get("asset_id")) for w in devices if w.kind == "device"}
        queries += [Query.one("hardware_assets", id=a) for a in sorted(assets)]
        return list(dict.fromkeys(queries))

    def __call__(self, context: CommitContext) -> Verdict:
        now = commit_time(context)
        commit = Commit(context.effects)
        findings = self._retirements(commit)
        if not any(w.kind in ("device", "order") for w in commit.work):
            return Verdict.of(findings)
        links = Links(commit, context.state)
        for work in commit.work:
            if work.kind not in ("device", "order"):
                continue
            employee = links.employee(work.employee_id)
            device_type = self._device_type(work, context.state)
            if employee is None or device_type is None:
                continue
            if (
                work.kind == "device"
                and device_type in _LAPTOPS
                and not _retired(commit, work.employee_id, _LAPTOPS)
            ):
                findings.append(self._laptop(work, device_type))
            findings.extend(self._approval(work, employee, device_type, commit, context.state))
            if work.kind == "order":
                findings.extend(self._lead_time(work, device_type, now))
        return Verdict.of(findings)

    def _retirements(self, commit: Commit) -> list[Finding]:
        assets = {e.key_text: e.after or {} for e in commit.effects if e.table == "hardware_assets"}
        replaced = {
            (
                str((w.effect.after or {}).get("employee_id")),
                assets.get(str((w.effect.after or {}).get("asset_id")), {}).get("device_type"),
            )
            for w in commit.work
            if w.kind == "device"
        } | {
            (w.employee_id, (w.effect.after or {}).get("device_type"))
            for w in commit.work
            if w.kind == "order"
        }
        findings = []
        for closed in commit.updated("asset_assignments"):
            before, after = closed.before or {}, closed.after or {}
            if not before.get("is_active") or after.get("is_active"):
                continue
            asset = assets.get(str(after.get("asset_id")), {})
            holder = str(after.get("employee_id"))
            if asset.get("condition") != "retired" or (holder, asset.get("device_type")) in replaced:
                continue
            message = (
                f"device {after.get('asset_id')} ({asset.get('device_type')}) of {holder} retired with no "
                "replacement assigned or ordered"
            )
            hint = "allowed: retire_device for the old device of a replacement, in the same transaction"
            evidence = {"key": str(after.get("asset_id")), "employee_id": holder}
            findings.append(
                Finding(
                    self.name,
                    Severity.BLOCK,
                    message,
                    hint=hint,
                    rule="device-retired-replaced",
                    evidence=evidence,
                )
            )
        return findings

    @staticmethod
    def _device_type(work: Work, state: StateSnapshot) -> str | None:
        row = work.effect.after or {}
        if work.kind == "order":
            return str(row.get("device_type"))
        asset = state.one("hardware_assets", id=str(row.get("asset_id")))
        return None if asset is None else str(asset.get("device_type"))

    def _finding(self, rule: str, work: Work, message: str, hint: str) -> Finding:
        evidence = {"key": work.effect.key_text, "employee_id": work.employee_id}
        return Finding(self.name, Severity.BLOCK, message, hint=hint, rule=rule, evidence=evidence)

    def _label(self, work: Work, device_type: str) -> str:
        row = work.effect.after or {}
        if work.kind == "device":
            asset = row.get("asset_id")
            return f"assignment {work.effect.key_text}: {device_type} {asset} for {work.employee_id}"
        return (
            f"order {work.effect.key_text}: {device_type} '{row.get('device_model')}' for {work.employee_id}"
        )

    def _laptop(self, work: Work, device_type: str) -> Finding:
        message = f"{self._label(work, device_type)} while none of the employee's laptops was retired"
        hint = (
            "allowed: a replacement retires the old laptop (retire_device) in the same transaction; "
            "laptops for new employees are escalated to IT Operations"
        )
        return self._finding("device-laptop-replacement", work, message, hint)

    def _approval(
        self, work: Work, employee: Row, device_type: str, commit: Commit, state: StateSnapshot
    ) -> list[Finding]:
        if device_type not in _NEEDS_CASE or employee.get("department") == "executive_leadership":
            return []
        role = str(employee.get("role") or "")
        remote = employee.get("office_location") == "remote"
        if device_type == "monitor" and (remote or any(word in role for word in _TECHNICAL)):
            return []
        if device_type == "docking_station" and remote:
            return []
        if device_type != "laptop_premium" and _retired(commit, work.employee_id, (device_type,)):
            return []
        requests = state.find("approval_requests", requester_id=work.employee_id)
        if any(
            r.get("request_type") == "hardware_purchase" and r.get("status") == "approved" for r in requests
        ):
            return []
        who = f"{employee.get('role')}, {employee.get('department')}, {employee.get('office_location')}"
        message = f"{self._label(work, device_type)} ({who}) with no approved hardware purchase request"
        hint = (
            "allowed: business justification and a Manager approval request first (ticket pending until "
            "approved); auto-approval only as the hardware policy lists"
        )
        return [self._finding("device-approval", work, message, hint)]

    def _lead_time(self, work: Work, device_type: str, now: datetime) -> list[Finding]:
        row = work.effect.after or {}
        days = lead_time_days(device_type)
        expected = add_business_days(now.date(), days).isoformat()
        if str(row.get("expected_delivery_date"))[:10] == expected:
            return []
        message = (
            f"{self._label(work, device_type)}: expected_delivery_date '{row.get('expected_delivery_date')}'"
        )
        hint = f"allowed: {expected} ({days} business days from today)"
        return [self._finding("order-lead-time", work, message, hint)]
