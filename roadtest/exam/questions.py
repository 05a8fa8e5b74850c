"""Exam questions from the rule catalogue and the sign metadata: sign identification, required action, open.

Nothing here is written per scene: the options of an action question are composed from the per-rule
phrases of the catalogue records (their `exam:`) for the rules in force at the frame, and the options of a sign question from
the meanings of the country's own signs. Every question keeps its answer and its justification.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from roadtest.errors import UserError

__all__ = ["Option", "Question", "action_question", "sign_question", "open_question", "compliant", "excused_rules",
           "action_phrases", "display", "LETTERS", "question_rng", "sign_meaning"]

LETTERS = "ABCD"
_IMPERIAL = {"US", "GB"}  # countries whose signs show miles per hour
_FIELD = re.compile(r"\{([a-z_0-9]+)(?:\|([a-z]+))?\}")


@dataclass(frozen=True)
class Option:
    """One answer option; `breaks` lists the rules that doing it would break (empty: it complies)."""

    text: str
    breaks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Question:
    """A multiple-choice or open question with its key and why the key is right."""

    id: str
    kind: str  # "sign" | "action" | "open"
    prompt: str
    options: tuple[Option, ...]  # empty for open questions
    answer: str  # a letter, or the reference text of an open question
    justification: dict[str, Any] = field(default_factory=dict)


def action_phrases() -> dict[str, dict[str, Any]]:
    """Rule id -> {comply: str, violate: [str, ...]}: the exam phrases of each catalogue record that has them."""
    from roadtest.rules.catalogue_model import load_catalogue

    return {rid: {"comply": r.exam.comply, "violate": list(r.exam.violate)}
            for rid, r in load_catalogue().items() if r.exam is not None}


def question_rng(*parts: Any) -> random.Random:
    """A generator seeded by the question's identity, so the same scene gives the same exam in any process."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def display(value: float, unit: str, country: str) -> str:
    """An SI value in the unit a driver of `country` reads: km/h or mph, m, s."""
    if unit == "kmh":
        if country in _IMPERIAL:
            return f"{round(value * 3.6 / 1.609344)} mph"
        return f"{round(value * 3.6)} km/h"
    if unit == "m":
        return f"{value:g} m"
    if unit == "s":
        return f"{value:g} s"
    raise ValueError(f"unknown display unit {unit!r}")


def _fill(template: str, values: Mapping[str, float | str], country: str) -> str:
    def one(m: re.Match) -> str:
        name, unit = m.group(1), m.group(2)
        if name not in values:
            raise KeyError(f"phrase {template!r} needs {name!r}")
        v = values[name]
        return str(v) if unit is None else display(float(v), unit, country)

    return _FIELD.sub(one, template)


def _values(rule: Mapping[str, Any], scene: Mapping[str, Any], country: str, driving_side: str) -> dict[str, Any]:
    vals: dict[str, Any] = dict(rule.get("params") or {})
    limit = scene.get("limit")
    if limit is not None:
        vals["limit"] = float(limit)
        vals["over_limit"] = float(limit) * 1.3
    if "fast_gap" in vals:
        vals["half_fast_gap"] = vals["fast_gap"] / 2.0
    vals["side"] = driving_side
    return vals


def excused_rules(rules: Sequence[Mapping[str, Any]], governing: str | None,
                  conflicts: Mapping[str, Sequence[str]]) -> set[str]:
    """Rules a compliant driver breaks because the governing higher-priority rule demands it."""
    if governing is None:
        return set()
    prio = {r["id"]: r.get("priority") if r.get("priority") is not None else 99 for r in rules}
    out = set()
    for r in rules:
        rid = r["id"]
        if rid == governing:
            continue
        clash = rid in conflicts.get(governing, ()) or governing in conflicts.get(rid, ())
        if clash and prio[governing] < prio[rid]:
            out.add(rid)
    return out


def compliant(option: Option, excused: set[str]) -> bool:
    """An option complies with the rules in force under the priority order when it breaks only excused rules."""
    return set(option.breaks) <= excused


def _join(parts: Sequence[str]) -> str:
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "."


def action_question(qid: str, rules: Sequence[Mapping[str, Any]], governing: str | None,
                    conflicts: Mapping[str, Sequence[str]], country: str, driving_side: str,
                    scene: Mapping[str, Any], level: str | None, sources: Mapping[str, Mapping[str, str]]) -> Question:
    """Four concrete actions: exactly one keeps every rule in force under the priority order; each other breaks a named rule."""
    phrases = action_phrases()
    missing = [r["id"] for r in rules if r["id"] not in phrases]
    if missing:
        raise UserError(f"exam: no action phrases for rule(s) {', '.join(missing)} ; give their catalogue records exam: {{comply, violate}}")
    ordered = sorted(rules, key=lambda r: (r.get("priority") if r.get("priority") is not None else 99, r["id"]))
    excused = excused_rules(ordered, governing, conflicts)
    kept = [r for r in ordered if r["id"] not in excused]
    comply = {r["id"]: _fill(phrases[r["id"]]["comply"], _values(r, scene, country, driving_side), country) for r in kept}
    right = Option(_join([comply[r["id"]] for r in kept]), tuple(sorted(excused)))
    wrongs: list[Option] = []
    for depth in range(3):  # first each rule's first violation, then their second ...
        for r in kept:
            violations = phrases[r["id"]]["violate"]
            if depth >= len(violations):
                continue
            bad = _fill(violations[depth], _values(r, scene, country, driving_side), country)
            text = _join([bad if k["id"] == r["id"] else comply[k["id"]] for k in kept])
            wrongs.append(Option(text, tuple(sorted({r["id"], *excused}))))
    if len(wrongs) < 3:
        raise UserError(f"exam: rules {', '.join(r['id'] for r in kept)} give only {len(wrongs)} distractors (3 needed)")
    rng = question_rng(qid, "action")
    options = [right] + wrongs[:3]
    rng.shuffle(options)
    answer = LETTERS[options.index(right)]
    prompt = (f"You are driving in {country} ({driving_side}-hand traffic). Look at the image. "
              "Which action follows every traffic rule that applies here? Answer with one letter.\n"
              + "\n".join(f"{LETTERS[i]}. {o.text}" for i, o in enumerate(options)))
    just = {"rules": [r["id"] for r in ordered], "priority_classes": [r.get("priority_class") for r in ordered],
            "governing": governing, "excused": sorted(excused), "level": level,
            "rule_content": {r["id"]: sources.get(r["id"], {}).get("content") for r in ordered},
            "legal_source": {r["id"]: sources.get(r["id"], {}).get("source") for r in ordered},
            "distractors": {LETTERS[i]: [b for b in o.breaks if b not in excused] for i, o in enumerate(options) if o is not right}}
    return Question(qid, "action", prompt, tuple(options), answer, just)


def _look(sign: Mapping[str, Any], country: str) -> tuple[str | None, str | None]:
    """(shape, main colour) of a sign's face in one country, where the metadata has them."""
    code = (sign.get("codes") or {}).get(country) or {}
    shape = code.get("shape") or sign.get("shape")
    colour = code.get("colour") or code.get("color") or sign.get("colour")
    if colour is None:
        cols = code.get("colours") or code.get("colors") or sign.get("colours")
        if isinstance(cols, (list, tuple)) and cols:
            colour = cols[0]
        elif isinstance(cols, Mapping):
            colour = cols.get("background") or cols.get("border")
    return shape, colour


def sign_meaning(sign: Mapping[str, Any], value: float | None, country: str) -> str:
    """What a sign (with its value, in the catalogue unit) means, in the words the exam options use."""
    base = str(sign.get("meaning", "")).strip().rstrip(".")
    if value is not None:
        base = base.split(";")[0]  # "Maximum speed; the value is the limit" -> "Maximum speed: 50 km/h"
    if value is not None and sign.get("unit") == "km/h":
        return f"{base}: {display(float(value) / 3.6, 'kmh', country)}"
    if value is not None:
        return f"{base}: {value:g} {sign.get('unit') or ''}".rstrip()
    return base


def sign_question(qid: str, sign_id: str, value: float | None, country: str, catalogue: Mapping[str, Mapping[str, Any]],
                  rules_implied: Sequence[str] = ()) -> Question:
    """"What does the sign ahead mean?" with the right meaning and three of the country's look-alike signs."""
    if sign_id not in catalogue:
        raise UserError(f"exam: sign {sign_id!r} is not in the sign catalogue")
    sign = catalogue[sign_id]
    right = Option(sign_meaning(sign, value, country))
    shape, colour = _look(sign, country)
    rng = question_rng(qid, "sign")
    pool = []
    for other_id, other in sorted(catalogue.items()):
        if other_id == sign_id or not (other.get("codes") or {}).get(country):
            continue
        o_shape, o_colour = _look(other, country)
        alike = (shape is not None and o_shape == shape) + (colour is not None and o_colour == colour)
        pool.append((-alike, rng.random(), other_id, other))
    pool.sort()
    wrong: list[Option] = []
    if value is not None and sign.get("value") == "required":  # the same sign with another value looks most alike
        alt = value + (20.0 if value < 100 else -20.0)
        wrong.append(Option(sign_meaning(sign, alt, country), (sign_id,)))
    for _, _, other_id, other in pool:
        if len(wrong) == 3:
            break
        o_value = value if other.get("value") == "required" and value is not None else None
        text = sign_meaning(other, o_value, country)
        if text and text not in {right.text, *(w.text for w in wrong)}:
            wrong.append(Option(text, (other_id,)))
    if len(wrong) < 3:
        raise UserError(f"exam: the {country} sign set has too few other signs for a sign question")
    options = [right] + wrong
    rng.shuffle(options)
    prompt = (f"You are driving in {country}. What does the sign ahead mean? Answer with one letter.\n"
              + "\n".join(f"{LETTERS[i]}. {o.text}" for i, o in enumerate(options)))
    just = {"sign": sign_id, "value": value, "meaning": right.text, "rules": list(rules_implied),
            "look": {"shape": shape, "colour": colour}}
    return Question(qid, "sign", prompt, tuple(options), LETTERS[options.index(right)], just)


def open_question(qid: str, signs: Sequence[tuple[str, float | None]], action: Question | None, country: str,
                  catalogue: Mapping[str, Mapping[str, Any]]) -> Question:
    """"Identify the signs and the required actions": the key names each sign and the compliant action."""
    seen = [{"id": s, "meaning": sign_meaning(catalogue[s], v, country)} for s, v in signs if s in catalogue]
    right = action.options[LETTERS.index(action.answer)].text if action is not None else ""
    key = "; ".join(x["meaning"] for x in seen) or "no signs"
    prompt = (f"You are driving in {country}. Identify the traffic signs in the image and the actions the traffic "
              "rules require of you here.")
    return Question(qid, "open", prompt, (), f"Signs: {key}. Required: {right or 'drive on normally.'}",
                    {"signs": seen, "action": right, "rules": list(action.justification["rules"]) if action else []})
