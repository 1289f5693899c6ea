"""The airline's conversation judges on hand-written trajectories: each rule stops the violation it is
written for, lets the right version of the same work through, and, given no conversation, says it did
not judge and never blocks (Requirement G5: a judge that cannot judge says so; it decides nothing on the
absence of what it needs)."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.domains.tau_airline.judges import CabinStatedJudge, ClaimsJudge, ConfirmationJudge, RetryJudge
from judges import CallRecord, CommitContext, Decision, Effect, EffectKind, Role, Severity, Turn, Verdict

BAGS = "update_reservation_baggages"
FLIGHTS = "update_reservation_flights"
BOOK = "book_reservation"


def user(text: str) -> Turn:
    return Turn(Role.USER, text)


def agent(text: str) -> Turn:
    return Turn(Role.ASSISTANT, text)


def call(tool: str, *turns: Turn, ok: bool = True, error: str | None = None, **arguments: Any) -> CallRecord:
    return CallRecord(
        tool, arguments, write=tool != "get_reservation_details", ok=ok, error_message=error, turns=turns
    )


def context(*calls: CallRecord, summary: str = "", conversation: bool = True) -> CommitContext:
    turns = tuple(t for c in calls for t in c.turns) if conversation else None
    return CommitContext("t", (), calls, summary, conversation=turns)


LISTED = agent("I will add 1 checked bag to reservation R1 for $50 on your card. Shall I go ahead?")


def rules(verdict: Verdict) -> list[str]:
    return [str(f.rule) for f in verdict.findings if f.severity is Severity.BLOCK]


@pytest.mark.parametrize(
    "answer",
    [
        "Yes, please.",
        "yes",
        "Please go ahead with that.",
        "That sounds good, proceed.",
        "I confirm.",
        "Everything is correct.",
        "Could you add the bag, please?",
        "Sure, do it.",
        "OK.",
    ],
)
def test_a_write_the_user_said_yes_to_is_confirmed(answer: str) -> None:
    """Requirement G5: an explicit yes, or the user asking for that kind of write, is consent."""
    verdict = ConfirmationJudge()(context(call(BAGS, LISTED, user(answer), reservation_id="R1")))
    assert verdict.decision is Decision.ALLOW, verdict


@pytest.mark.parametrize(
    "answer",
    [
        "I'll go with the first option.",
        "Use my gift card.",
        "Hmm, what would that cost?",
        "Thanks!",
        "Can you make sure my payment is the original one?",
    ],
)
def test_a_write_after_anything_but_a_yes_is_stopped(answer: str) -> None:
    """Requirement G5: a choice, an instruction about payment or a question is not a confirmation."""
    verdict = ConfirmationJudge()(context(call(BAGS, LISTED, user(answer), reservation_id="R1")))
    assert rules(verdict) == ["write-confirmed"]
    assert verdict.findings[0].evidence["user_said"] == answer
    assert (verdict.findings[0].hint or "").startswith("allowed:")


def test_one_yes_covers_the_writes_it_was_given_for_and_a_refused_write_is_not_judged() -> None:
    """Requirement G5: "yes, downgrade all of them" covers each write that follows it; a write the tool
    refused changed nothing and needs no consent."""
    many = context(
        call(
            FLIGHTS, agent("Downgrade R1 and R2 to economy?"), user("Yes, all of them."), reservation_id="R1"
        ),
        call(FLIGHTS, reservation_id="R2"),
        call(
            BAGS,
            agent("Add a bag?"),
            user("Hmm."),
            ok=False,
            error="Error: gift card balance is not enough",
            reservation_id="R1",
        ),
    )
    assert ConfirmationJudge()(many).decision is Decision.ALLOW


def test_a_retry_the_user_answered_after_the_refusal_is_confirmed_by_the_first_yes() -> None:
    """Requirement G5: the user said yes, the write was refused, the agent asked how to go on and the user
    answered: the retry with the user's answer is consented to."""
    retried = context(
        call(
            FLIGHTS,
            LISTED,
            user("Yes, use my card."),
            ok=False,
            error="Error: payment method not found",
            reservation_id="R1",
            payment_id="credit_card_1",
        ),
        call(
            FLIGHTS,
            agent("No card on file. Gift card?"),
            user("Let's use the gift card then."),
            reservation_id="R1",
            payment_id="gift_card_1",
        ),
    )
    assert ConfirmationJudge()(retried).decision is Decision.ALLOW
    assert RetryJudge()(retried).decision is Decision.ALLOW


def test_a_refused_write_retried_with_other_arguments_unasked_is_stopped() -> None:
    """Requirement G5: the reference refused the payment; the agent changed it without a word to the user."""
    unasked = context(
        call(
            BOOK,
            LISTED,
            user("Yes, book it."),
            ok=False,
            error="Error: payment amount does not add up, total price is 305, but paid 255",
            user_id="u1",
            payment_methods=[{"payment_id": "certificate_1", "amount": 255}],
        ),
        call(BOOK, user_id="u1", payment_methods=[{"payment_id": "certificate_1", "amount": 305}]),
    )
    verdict = RetryJudge()(unasked)
    assert rules(verdict) == ["retry-asked"]
    assert "changed payment_methods without the user saying a word" in verdict.findings[0].message
    same_again = context(
        call(BOOK, LISTED, user("Yes."), ok=False, error="Error: timeout", user_id="u1", x=1),
        call(BOOK, user_id="u1", x=1),
    )
    assert RetryJudge()(same_again).decision is Decision.ALLOW, "the same write again is the same action"


@pytest.mark.parametrize(
    ("summary", "claim"),
    [
        ("Done! One checked bag has been added to your reservation.", "bags added"),
        ("Your reservation has been successfully cancelled.", "a reservation cancelled"),
        ("You have been successfully booked on HAT001.", "a booking made"),
        ("The passenger has been updated to Omar Rossi.", "passengers updated"),
        ("Your cabin has been upgraded to business.", "a cabin upgraded or downgraded"),
        ("A certificate of $100 has been issued to your account.", "a certificate sent"),
    ],
)
def test_a_last_message_that_claims_a_change_no_call_made_is_stopped(summary: str, claim: str) -> None:
    """Requirement G5: the agent tells the user of a change no successful call of the transaction made."""
    verdict = ClaimsJudge()(context(call("get_reservation_details", reservation_id="R1"), summary=summary))
    assert rules(verdict) == ["claims-made"]
    assert verdict.findings[0].evidence["claim"] == claim


@pytest.mark.parametrize(
    "summary",
    [
        "Your reservation was booked on May 6, which is beyond the 24-hour window.",
        "I can only help if it was cancelled by the airline.",
        "I will now proceed with the downgrades.",
        "Unfortunately, bags cannot be removed.",
    ],
)
def test_history_conditions_and_plans_are_not_claims(summary: str) -> None:
    assert ClaimsJudge()(context(summary=summary)).decision is Decision.ALLOW


def test_a_claim_a_successful_call_made_passes() -> None:
    done = context(call(BAGS, LISTED, user("yes"), reservation_id="R1"), summary="2 bags have been added.")
    changed = context(
        call(FLIGHTS, LISTED, user("yes"), reservation_id="R1"),
        summary="You are now booked on the nonstop flight.",
    )
    assert ClaimsJudge()(done).decision is Decision.ALLOW
    assert ClaimsJudge()(changed).decision is Decision.ALLOW, "a changed flight is a booking to the user"


def test_without_a_conversation_the_judges_say_so_and_never_block() -> None:
    """Requirement G5: no conversation handed over: not judged, said in a warning with its rule."""
    bare = context(call(BAGS, reservation_id="R1"), conversation=False)
    for judge in (ConfirmationJudge(), RetryJudge(), CabinStatedJudge()):
        verdict = judge(bare)
        assert verdict.decision is Decision.ALLOW
        (finding,) = verdict.findings
        assert finding.severity is Severity.WARN
        assert finding.evidence == {"not_evaluated": "conversation"}
        assert "not judged" in finding.message


def reservation(key: str, cabin: str, new_cabin: str) -> Effect:
    before = {"reservation_id": key, "cabin": cabin}
    return Effect(
        "reservations", (key,), EffectKind.UPDATE, before, {**before, "cabin": new_cabin}, ("cabin",)
    )


def cabin_change(*turns: Turn, cabin: str = "business", was: str = "economy") -> CommitContext:
    change = call(FLIGHTS, *turns, reservation_id="R1", cabin=cabin, flights=[], payment_id="gift_card_1")
    return CommitContext("t", (reservation("R1", was, cabin),), (change,), conversation=turns)


@pytest.mark.parametrize(
    ("said", "cabin"),
    [
        ("Please downgrade me to economy.", "business"),
        ("I'd like to move to basic economy.", "economy"),
        ("Upgrade me to business class, please.", "economy"),
    ],
)
def test_a_cabin_other_than_the_one_the_user_last_named_is_stopped(said: str, cabin: str) -> None:
    """Requirement G5: the cabin written is the one the user asked for (the latest turn naming one)."""
    turns = (user(said), agent("I will change the cabin. Shall I proceed?"), user("Yes."))
    verdict = CabinStatedJudge()(cabin_change(*turns, cabin=cabin, was="first"))
    assert rules(verdict) == ["cabin-as-stated"]
    assert verdict.findings[0].evidence["cabin"] == cabin
    assert (verdict.findings[0].hint or "").startswith("allowed:")


@pytest.mark.parametrize(
    ("turns", "cabin", "was"),
    [
        # the user named the cabin written
        ((user("Could I go business instead?"), user("Yes, go ahead.")), "business", "economy"),
        # the user changed their mind: the latest turn naming a cabin counts
        (
            (user("Upgrade me to business."), user("Too dear; economy then."), user("Yes.")),
            "economy",
            "basic_economy",
        ),
        # named both, in one turn
        ((user("I'm in economy now and want business."),), "business", "economy"),
        # never named a cabin
        ((user("Please move my flight to Friday."), user("Yes.")), "business", "economy"),
        # the cabin is not changed: not a cabin change, whatever was said
        ((user("Business would be nice, but keep it as it is."),), "economy", "economy"),
    ],
)
def test_a_cabin_the_user_named_or_never_named_or_kept_passes(
    turns: tuple[Turn, ...], cabin: str, was: str
) -> None:
    assert CabinStatedJudge()(cabin_change(*turns, cabin=cabin, was=was)).decision is Decision.ALLOW


def test_a_booking_in_a_cabin_the_user_did_not_name_is_stopped_and_a_refused_one_is_not_judged() -> None:
    turns = (user("Book me economy from JFK to SFO on May 20."), agent("Booking business. OK?"), user("Yes."))
    booked = call(BOOK, *turns, user_id="u1", cabin="business")
    assert rules(CabinStatedJudge()(CommitContext("t", (), (booked,), conversation=turns))) == [
        "cabin-as-stated"
    ]
    refused = call(BOOK, *turns, ok=False, error="Error: not enough seats", user_id="u1", cabin="business")
    assert (
        CabinStatedJudge()(CommitContext("t", (), (refused,), conversation=turns)).decision is Decision.ALLOW
    )
