"""Wrong trajectories of every domain replayed through its guarded arm: the gate does what each case says.

Each case (:mod:`tests.benchmark.wrong_cases`) is a golden trajectory with one
edit, declared in ``tests/benchmark/<domain>_rules/cases.py``; a test runs
once per (domain, case), with the id ``<domain>/<case>``.

* A blocked mistake blocks the first commit, by each of the case's rules,
  with a finding that names the record, the field, the value found and what
  is allowed; nothing of it commits (Requirement G1).
* Where a domain declares a :class:`~tests.benchmark.wrong_cases.Wording`,
  the findings of a blocked commit are status text with a hint of what is
  allowed, never an order to the agent.
* A warned mistake commits with one warning that says why; another correct
  way commits without a blocking finding; a missed mistake commits unseen,
  a real mistake all the same (its graded state differs from the golden one).
* Each domain's catalogue covers what its :class:`~tests.benchmark.wrong_cases.Catalogue` asks.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.results import TrialResult
from tests.benchmark.auto_insurance_rules.cases import WRONG_DOMAIN as AUTO_INSURANCE
from tests.benchmark.booking_rules.cases import WRONG_DOMAIN as BOOKING
from tests.benchmark.consulting_rules.cases import WRONG_DOMAIN as CONSULTING
from tests.benchmark.domain_fixtures import ReplayGuarded, replay_guarded_fixture
from tests.benchmark.neobank_rules.cases import WRONG_DOMAIN as NEOBANK
from tests.benchmark.retail_rules.cases import WRONG_DOMAIN as RETAIL
from tests.benchmark.tau_airline_rules.cases import WRONG_DOMAIN as TAU_AIRLINE
from tests.benchmark.wrong_cases import Kind, WrongCase, WrongDomain

DOMAINS = (AUTO_INSURANCE, BOOKING, CONSULTING, NEOBANK, RETAIL, TAU_AIRLINE)

replay_guarded = replay_guarded_fixture()

Finding = dict[str, Any]


def _pairs(kind: Kind, *, worded: bool = False) -> list[Any]:
    """``(domain, case)`` parameters of every case of ``kind`` (of domains with a wording, if ``worded``)."""
    return [
        pytest.param(domain, case, id=f"{domain.name}/{name}")
        for domain in DOMAINS
        if domain.wording or not worded
        for name, case in domain.of(kind).items()
    ]


_REPLAYED: dict[tuple[str, int], TrialResult] = {}
"""A case's replay, kept for the module: the worded test reads the blocked test's replay (they are
deterministic, and a result is only read)."""


async def _replay(replay_guarded: ReplayGuarded, domain: WrongDomain, case: WrongCase) -> TrialResult:
    key = (domain.name, id(case))
    if key not in _REPLAYED:
        _REPLAYED[key] = await replay_guarded(domain, domain.prefix + case.task, case.edit)
    return _REPLAYED[key]


def _text(finding: Finding) -> str:
    return f"{finding['message']} | {finding.get('hint') or ''}"


def _statuses(result: TrialResult) -> list[str]:
    return [verdict.status for verdict in result.verdicts]


def _blocking(result: TrialResult) -> list[Finding]:
    return [f for verdict in result.verdicts for f in verdict.findings if f["severity"] == "block"]


@pytest.mark.parametrize(("domain", "case"), _pairs(Kind.BLOCKED))
async def test_a_wrong_trajectory_is_blocked_by_its_rules_with_findings_that_name_it(
    domain: WrongDomain, case: WrongCase, replay_guarded: ReplayGuarded
) -> None:
    result = await _replay(replay_guarded, domain, case)
    assert result.system_error is None, result.system_error
    assert result.tool_errors == case.tool_errors, "the edit itself must be a valid trajectory"
    assert result.verdicts, "the trajectory reached no commit"
    first = result.verdicts[0]
    assert (first.via, first.status, first.decision) == ("tool", "blocked", "block"), first.findings
    assert "committed" not in _statuses(result)
    hits = [f for f in first.findings if f.get("rule") in case.rules]
    fired = {f.get("rule") for f in hits if f["severity"] == "block"}
    assert case.rules <= fired, [(f.get("rule"), f["message"]) for f in first.findings]
    assert all(f["severity"] == "block" for f in hits), hits
    assert not any("could not be evaluated" in f["message"] for f in hits), hits
    assert any(all(word in _text(f) for word in case.words) for f in hits), [_text(f) for f in hits]
    assert not result.passed
    assert not result.state_passed


@pytest.mark.parametrize(("domain", "case"), _pairs(Kind.BLOCKED, worded=True))
async def test_the_findings_of_a_blocked_commit_are_status_text_with_what_is_allowed(
    domain: WrongDomain, case: WrongCase, replay_guarded: ReplayGuarded
) -> None:
    wording = domain.wording
    assert wording is not None
    result = await _replay(replay_guarded, domain, case)
    checked = [
        f
        for f in result.verdicts[0].findings
        if (wording.judges is None or f["judge"] in wording.judges)
        and (not wording.rules_only or f.get("rule") in case.rules)
    ]
    assert checked, result.verdicts[0].findings
    for finding in checked:
        hint = finding.get("hint") or ""
        assert not wording.imperative.search(finding["message"]), finding
        assert not wording.imperative.search(hint), finding
        assert hint.startswith(wording.hint), finding
        assert "could not be evaluated" not in finding["message"], finding
        assert not wording.evidence or finding["evidence"]["table"], finding


@pytest.mark.parametrize(("domain", "case"), _pairs(Kind.WARNED))
async def test_a_warned_mistake_commits_with_its_warning(
    domain: WrongDomain, case: WrongCase, replay_guarded: ReplayGuarded
) -> None:
    result = await _replay(replay_guarded, domain, case)
    assert result.system_error is None, result.system_error
    assert result.tool_errors == case.tool_errors
    assert _statuses(result) == ["committed"]
    hits = [f for f in result.verdicts[0].findings if f.get("rule") in case.rules]
    assert [f["severity"] for f in hits] == ["warn"], hits
    assert all(word in _text(hits[0]) for word in case.words), _text(hits[0])


@pytest.mark.parametrize(("domain", "case"), _pairs(Kind.ALLOWED))
async def test_another_correct_way_commits_without_a_blocking_finding(
    domain: WrongDomain, case: WrongCase, replay_guarded: ReplayGuarded
) -> None:
    result = await _replay(replay_guarded, domain, case)
    assert result.system_error is None, result.system_error
    assert result.tool_errors == case.tool_errors
    assert [f for v in result.verdicts for f in v.findings if f["severity"] != "warn"] == []
    assert _statuses(result) == ["committed"]


@pytest.mark.parametrize(("domain", "case"), _pairs(Kind.MISSED))
async def test_a_missed_mistake_commits_unseen(
    domain: WrongDomain, case: WrongCase, replay_guarded: ReplayGuarded
) -> None:
    assert case.why
    result = await _replay(replay_guarded, domain, case)
    assert result.system_error is None, result.system_error
    assert result.tool_errors == case.tool_errors
    assert _statuses(result) == ["committed"], case.why
    assert _blocking(result) == []
    assert not result.passed, "a missed case is a real mistake: the graded state differs"
    assert not result.state_passed


@pytest.mark.parametrize("domain", DOMAINS, ids=[domain.name for domain in DOMAINS])
def test_the_catalogue_covers_what_the_domain_asks(domain: WrongDomain) -> None:
    catalogue = domain.catalogue
    caught = domain.of(Kind.BLOCKED)
    rules = {rule for case in caught.values() for rule in case.rules}
    assert len(caught) >= catalogue.blocked
    assert len(rules) >= catalogue.rules
    assert catalogue.missed in (None, len(domain.of(Kind.MISSED)))
    assert catalogue.families <= {rule.split("-")[0] for rule in rules}
    assert catalogue.named <= rules
