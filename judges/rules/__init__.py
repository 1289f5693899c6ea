"""Declarative rule packs: YAML rules whose conditions are CEL over an effect and the rows it looks up.

Load a file with :func:`load_rule_pack` (or text with :func:`parse_rule_pack`);
the result is a :class:`RulePack`, a judge named after the pack. A rule file::

    name: retail                      # optional; defaults to the file's stem
    project: true                     # optional; see judges.rules.view
    lookups:                          # optional; named lookups any rule may use
      order: {table: orders, where: {id: "effect.after.order_id"}, one: true}
    rules:
      - id: ticket-solved-with-open-carrier-exception
        description: A ticket is not solved while its order has a carrier exception.
        when: {table: tickets, kind: [insert, update], changed: [status]}
        let:
          shipments: {table: shipments, where: {order_id: "effect.after.order_id"}}
        require: "effect.after.status != 'solved' || shipments.all(s, s.carrier_status != 'exception')"
        decision: block               # block | warn | escalate
        message: "ticket {{effect.key}}: status '{{effect.after.status}}' while carrier exception for
          {{effect.after.order_id}} is open"
        hint: "allowed: hold"

``when`` selects effects: ``table`` (a name, a list, or ``*``), ``kind``
(default ``[insert, update]``; also ``delete`` and ``call`` for outbox
writes, whose table is ``call:<tool>``) and ``changed`` (the rule applies
when any of these fields changed; empty means always).

A lookup is the rows of ``table`` whose columns equal the ``where`` values;
a string value is a CEL expression over ``effect`` (write ``"'open'"`` for the
string constant), other scalars are constants; ``limit`` caps the rows and
``one: true`` binds the first row or null instead of a list. Lookups under
``let`` and under ``lookups`` share one namespace per pack: a name means one
lookup throughout the file. A rule receives exactly the lookups its
expressions name.

``require`` is the condition a good commit meets; when it is false the rule
fires with its ``decision``. ``message`` and ``hint`` are templates
(:mod:`judges.rules.template`) worded as status text, not instructions. What a
rule sees is described in :mod:`judges.rules.view`. Every expression is
compiled, and every name checked, when the file loads (:mod:`judges.rules.loader`).
"""

from judges.rules.loader import load_rule_pack, parse_rule_pack
from judges.rules.pack import KeyValue, Lookup, Rule, RulePack

__all__ = ["KeyValue", "Lookup", "Rule", "RulePack", "load_rule_pack", "parse_rule_pack"]
