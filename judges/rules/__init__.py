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
        mode: shadow                  # optional: enforce | shadow (default: the guard's commit.mode)

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

A ``where`` value may also take its key from another lookup of the pack that
binds one row (``one: true``), which is then read first::

    lookups:
      requester: {table: zendesk_users, where: {id: "effect.after.requester_id"}, one: true}
      employee: {table: employees, where: {email: "requester.email"}, one: true}
      manager: {table: employees, where: {id: "employee.manager_id"}, one: true}

Such chained lookups are read in later rounds, in dependency order (at most
:data:`judges.rounds.MAX_ROUNDS` in all, so a chain is at most three links
past the effect); a lookup that refers to an unknown name, to a list lookup,
or (through others) to itself fails the load. Keys are matched as in SQL: a
``where`` value that is null matches no row, so a lookup keyed by a null field,
or by a lookup that found no row, is empty (null for ``one: true``) and the
chain ends there. A constant null is refused at load.

``now`` is the commit time, a CEL timestamp (the guard's clock; the
benchmark's frozen scenario clock): ``timestamp(effect.after.due_at) - now >
duration('240h')``, ``now - duration('2160h')`` (CEL durations have no day
unit: write hours), ``now.getFullYear()``, ``string(now)`` (RFC 3339 text).
``timestamp()`` reads RFC 3339 text with an offset; append ``'T00:00:00Z'``
to a bare date. A rule that reads ``now`` when the commit has no time (a
caller without a clock) blocks, like any rule that cannot be evaluated.
``now`` cannot key a lookup, and no lookup may be called ``now``.

``require`` is the condition a good commit meets; when it is false the rule
fires with its ``decision``. ``mode: shadow`` records the rule's findings
without acting on them (the commit goes ahead: a rule in rollout), and
``mode: enforce`` acts on them even when the guard runs in shadow; without
``mode`` the judge's and then the guard's mode apply (:func:`judges.in_modes`).
``message`` and ``hint`` are templates (:mod:`judges.rules.template`)
worded as status text, not instructions. What a rule sees is described in
:mod:`judges.rules.view`. Every expression is compiled, and every name
checked, when the file loads (:mod:`judges.rules.loader`).
"""

from judges.rules.loader import load_rule_pack, parse_rule_pack
from judges.rules.lookup import KeyValue, Lookup
from judges.rules.pack import Rule, RulePack

__all__ = ["KeyValue", "Lookup", "Rule", "RulePack", "load_rule_pack", "parse_rule_pack"]
