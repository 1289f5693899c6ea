"""Field selects run as indexes: the rewrite, and that it changes no value and no error.

Requirement G5: a rule that cannot be evaluated blocks the commit. The rewrite
must keep every such failure a failure with the same message, and every value
the same, so that no verdict or finding changes.
"""

from __future__ import annotations

from typing import Any

import pytest

from judges.rules import engine
from judges.rules.engine import CelEvalError, Environment, compile_expression
from judges.rules.lexer import indexed_selects


@pytest.mark.parametrize(
    ("source", "rewritten"),
    [
        ("effect.after.amount", "effect['after']['amount']"),
        ("effect.after.amount >= 10", "effect['after']['amount'] >= 10"),
        ("f(x).y[0].z", "f(x)['y'][0]['z']"),
        ("{'a': {'b': 1}}.a.b", "{'a': {'b': 1}}['a']['b']"),
        ("e.a.size() > 0", "e['a'].size() > 0"),
        ("e.name.startsWith('a.b')", "e['name'].startsWith('a.b')"),
        ("math.greatest(1, 2)", "math.greatest(1, 2)"),
        ("e.a.f (1)", "e['a'].f (1)"),
        ("shipments.all(s, s.carrier_status != 'x')", "shipments.all(s, s['carrier_status'] != 'x')"),
        ("rows.exists(r, r.x.y == 1)", "rows.exists(r, r['x']['y'] == 1)"),
        ("has(e.a.b) && e.a.b > 1", "has(e.a.b) && e['a']['b'] > 1"),
        ("has (e.a) || has(e.b.c) && e.d", "has (e.a) || has(e.b.c) && e['d']"),
        ("rows.all(r, has(r.x.y) && r.x.y)", "rows.all(r, has(r.x.y) && r['x']['y'])"),
        ("'x.y' + \".z\" + e.s", "'x.y' + \".z\" + e['s']"),
        ("e.s == '''a.b\n.c''' && e.t", "e['s'] == '''a.b\n.c''' && e['t']"),
        ("e.n > 1.5 && e.m < .5 && 2.0e3 > 1", "e['n'] > 1.5 && e['m'] < .5 && 2.0e3 > 1"),
        ("e.\n  a // c.d\n .b", "e['a'] // c.d\n ['b']"),
        ("e . a\t.\tb", "e ['a']\t['b']"),
        (".e.a", ".e['a']"),
        ("x in .e", "x in .e"),
        ("'k' in e.a", "'k' in e['a']"),
        ("e.a == null ? 'n' : e.a.b", "e['a'] == null ? 'n' : e['a']['b']"),
        # an escaped quote does not end a string, triple-quoted included; a raw string has no escapes
        ("e.n + '''\\'''e.a'x'''", "e['n'] + '''\\'''e.a'x'''"),
        ('e.a + """x\\"""y.z"""', 'e[\'a\'] + """x\\"""y.z"""'),
        ("r'\\' + e.a", "r'\\' + e['a']"),
        ("r'''x\\''' + e.a", "r'''x\\''' + e['a']"),
        ("effect", "effect"),
        ("", ""),
    ],
)
def test_rewrite(source: str, rewritten: str) -> None:
    assert indexed_selects(source) == rewritten


def test_an_unreadable_character_is_left_to_the_caller() -> None:
    with pytest.raises(ValueError, match="unexpected character '@'"):
        indexed_selects("e.a @ b")


def test_an_expression_keeps_its_source_and_variables() -> None:
    expression = compile_expression("rows.all(r, r.x.y > limit) && has(e.a.b)")
    assert expression.source == "rows.all(r, r.x.y > limit) && has(e.a.b)"
    assert expression.variables == {"rows", "r", "limit", "e"}


_WIDE = {f"k{i}": i for i in range(40)}

_CONTEXTS: dict[str, dict[str, Any]] = {
    "full": {
        "effect": {
            "kind": "update",
            "before": None,
            "after": {
                "id": 3,
                "status": "open",
                "tags": ["a"],
                "meta": None,
                "wide": _WIDE | {"deep": {"x": 1}},
            },
        },
        "shipments": [{"carrier_status": "y"}, {"carrier_status": "z"}],
    },
    "missing keys": {"effect": {"kind": "insert", "after": {"id": 1}}, "shipments": [{"other": 1}]},
    "null": {"effect": {"kind": None, "before": None, "after": None}, "shipments": [None]},
    "string": {"effect": {"kind": "delete", "after": "a.b"}, "shipments": ["carrier_status"]},
    "int": {"effect": {"kind": 1, "after": 7}, "shipments": [1]},
    "list": {"effect": {"kind": [], "after": [1, 2]}, "shipments": [[1]]},
    "empty": {"effect": {}, "shipments": []},
}

_EXPRESSIONS = (
    "effect.after.status == 'open'",
    "effect.after.wide.deep.x + effect.after.id",
    "effect.after.wide.k3 > 1.5 ? effect.after.wide.k39 : -1",
    "effect.after.meta.x",
    "effect.before.id",
    "has(effect.after.status) && effect.after.status.startsWith('o')",
    "has(effect.after.wide.deep) ? effect.after.wide.deep.x : 0",
    "effect.after.tags.exists(t, t == 'a')",
    "effect.after.tags.size()",
    "size(effect.after)",
    "'id' in effect.after",
    "effect.after.status in ['open', 'new'] || effect.kind == 'insert'",
    "effect.kind == 'delete' && effect.after.status == 'x'",
    "shipments.all(s, s.carrier_status != 'x')",
    "shipments.map(s, s.carrier_status)",
    "shipments.filter(s, has(s.carrier_status)).map(s, s.carrier_status)",
    "{'a': effect.after}.a.id",
    ".effect.after.id",
    "missing.after.id",
)


def _outcome(source: str, environment: Environment) -> tuple[str, Any]:
    try:
        return ("value", compile_expression(source).evaluate(environment))
    except CelEvalError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("context", sorted(_CONTEXTS))
@pytest.mark.parametrize("source", _EXPRESSIONS)
def test_the_rewritten_program_gives_the_same_value_or_error(
    source: str, context: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    environment = Environment(_CONTEXTS[context])
    with monkeypatch.context() as patch:
        patch.setattr(engine, "indexed_selects", lambda text: text)
        as_written = _outcome(source, environment)
    assert indexed_selects(source) != source
    assert _outcome(source, environment) == as_written
