"""Effects: captured row changes and before/after views become one net effect per record."""

from __future__ import annotations

import pytest

from judges import Effect, EffectKind, RowChange, call_effect, diff_fields, effects_between, fold_changes

KEYS = {"tickets": ("id",), "lines": ("order", "n")}


def test_insert_then_updates_fold_into_one_insert() -> None:
    changes = [
        RowChange("tickets", EffectKind.INSERT, None, {"id": 6, "status": "new"}),
        RowChange("tickets", EffectKind.UPDATE, {"id": 6, "status": "new"}, {"id": 6, "status": "open"}),
    ]
    assert fold_changes(changes, KEYS) == [
        Effect("tickets", (6,), EffectKind.INSERT, None, {"id": 6, "status": "open"}, ("id", "status"))
    ]


def test_insert_then_delete_leaves_nothing() -> None:
    changes = [
        RowChange("tickets", EffectKind.INSERT, None, {"id": 6}),
        RowChange("tickets", EffectKind.DELETE, {"id": 6}, None),
    ]
    assert fold_changes(changes, KEYS) == []


def test_update_back_to_the_original_leaves_nothing() -> None:
    changes = [
        RowChange("tickets", EffectKind.UPDATE, {"id": 1, "status": "open"}, {"id": 1, "status": "hold"}),
        RowChange("tickets", EffectKind.UPDATE, {"id": 1, "status": "hold"}, {"id": 1, "status": "open"}),
    ]
    assert fold_changes(changes, KEYS) == []


def test_updates_fold_from_first_before_to_last_after_in_first_touch_order() -> None:
    changes = [
        RowChange("tickets", EffectKind.UPDATE, {"id": 2, "s": "a"}, {"id": 2, "s": "b"}),
        RowChange("lines", EffectKind.DELETE, {"order": "O", "n": 1, "q": 1}, None),
        RowChange("tickets", EffectKind.UPDATE, {"id": 2, "s": "b"}, {"id": 2, "s": "c"}),
    ]
    effects = fold_changes(changes, KEYS)
    assert [(e.table, e.key, e.kind) for e in effects] == [
        ("tickets", (2,), EffectKind.UPDATE),
        ("lines", ("O", 1), EffectKind.DELETE),
    ]
    assert effects[0].before == {"id": 2, "s": "a"}
    assert effects[0].after == {"id": 2, "s": "c"}
    assert effects[0].changed_fields == ("s",)
    assert effects[1].key_text == "O/1"
    assert effects[1].row == {"order": "O", "n": 1, "q": 1}


def test_a_key_change_is_a_delete_and_an_insert() -> None:
    changes = [RowChange("tickets", EffectKind.UPDATE, {"id": 1, "s": "a"}, {"id": 9, "s": "a"})]
    assert [(e.key, e.kind) for e in fold_changes(changes, KEYS)] == [
        ((1,), EffectKind.DELETE),
        ((9,), EffectKind.INSERT),
    ]


def test_effects_between_before_and_after_views() -> None:
    before = {"tickets": [{"id": 1, "s": "open"}, {"id": 2, "s": "open"}]}
    after = {"tickets": [{"id": 2, "s": "open"}, {"id": 1, "s": "solved"}, {"id": 3, "s": "new"}]}
    effects = effects_between(before, after, KEYS)
    assert [(e.key, e.kind, e.changed_fields) for e in effects] == [
        ((1,), EffectKind.UPDATE, ("s",)),
        ((3,), EffectKind.INSERT, ("id", "s")),
    ]


def test_diff_fields_treats_missing_as_null_and_bool_apart_from_int() -> None:
    assert diff_fields({"a": None, "b": 1}, {"b": 1}) == ()
    assert diff_fields({"a": True}, {"a": 1}) == ("a",)
    assert diff_fields({"a": 1}, {"a": 1.0}) == ()


def test_outbox_call_effect() -> None:
    effect = call_effect("refund_payment", "idem-1", {"amount": 20, "order_id": "O1"})
    assert effect.table == "call:refund_payment"
    assert effect.kind is EffectKind.CALL
    assert effect.key_text == "idem-1"
    assert effect.changed_fields == ("amount", "order_id")
    assert effect.to_dict()["after"] == {"amount": 20, "order_id": "O1"}


def test_an_insert_without_a_new_row_is_a_bug() -> None:
    with pytest.raises(AssertionError):
        fold_changes([RowChange("tickets", EffectKind.INSERT, None, None)], KEYS)
