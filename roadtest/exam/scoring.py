"""Scoring exam answers: the letter a model chose, whether it answered in the asked format, open answers.

An answer that names more than one option letter counts as wrong (TB-Bench's rule): a model must not be
rewarded for hedging. Instruction following means the answer is exactly one letter, optionally with a
closing full stop or in a JSON object {"answer": "B"}.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

__all__ = ["extract_letter", "follows_format", "score_open", "accuracy_by"]

_LETTER_TOKEN = re.compile(r"(?<![A-Za-z])([A-D])(?![A-Za-z])")
_EXACT = re.compile(r"^\s*\(?([A-D])\)?\s*[.)]?\s*$")
_NEGATED = re.compile(r"\b(not|never|isn't|is not)\s+\(?([A-D])\b", re.I)


def _json_answer(text: str) -> str | None:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    if isinstance(data, Mapping):
        for key in ("answer", "choice", "option"):
            v = data.get(key)
            if isinstance(v, str) and _EXACT.match(v):
                return _EXACT.match(v).group(1)
    return None


def extract_letter(text: str | None) -> str | None:
    """The one option letter an answer names, or None when it names none or several."""
    if not text:
        return None
    exact = _EXACT.match(text) or None
    if exact:
        return exact.group(1)
    from_json = _json_answer(text.strip())
    if from_json:
        return from_json
    negated = {m.group(2).upper() for m in _NEGATED.finditer(text)}
    named = {m.group(1) for m in _LETTER_TOKEN.finditer(text)} - negated
    if _only_article(text, named):
        named.discard("A")
    return next(iter(named)) if len(named) == 1 else None


def _only_article(text: str, named: set[str]) -> bool:
    """True when every standalone 'A' in the text is the English article ('A car ...'), not an option."""
    if "A" not in named:
        return False
    for m in re.finditer(r"(?<![A-Za-z])A(?![A-Za-z])", text):
        starts_sentence = re.search(r"(^|[.!?:]\s+)$", text[:m.start()]) is not None  # mid-sentence the article is "a"
        nxt = re.match(r" ([a-z]+)", text[m.end():])
        if not starts_sentence or nxt is None or nxt.group(1) in _AFTER_LETTER:
            return False
    return True


# words that follow an option letter ("A and B", "A is right"), never the article "a"
_AFTER_LETTER = {"and", "or", "nor", "is", "are", "was", "seems", "looks", "would", "then", "but", "plus", "also", "vs"}


def follows_format(text: str | None) -> bool:
    """The answer is one letter as asked (or a JSON object holding one)."""
    if not text:
        return False
    return bool(_EXACT.match(text)) or _json_answer(text.strip()) is not None


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


_STOP = {"the", "a", "an", "and", "to", "of", "at", "in", "on", "is", "you", "your", "it", "for", "with", "then",
         "when", "be", "or", "no", "not", "than", "more", "most", "least", "every", "signs", "sign", "required",
         "drive", "road"}


def score_open(answer: str | None, key: Mapping[str, Any]) -> dict[str, Any]:
    """Match an open answer against the key's sign meanings and required action by their content words.

    A sign counts as identified when at least half of its meaning's content words appear in the answer;
    the action when at least half of the compliant action's content words do. Numbers must match exactly.
    """
    words = _words(answer or "")
    signs = key.get("signs") or []
    found = []
    for s in signs:
        need = _words(s["meaning"]) - _STOP
        numbers = {w for w in need if w.isdigit()}
        ok = bool(need) and len(need & words) >= max(1, len(need) // 2) and numbers <= words
        found.append({"id": s["id"], "identified": ok})
    action_need = _words(key.get("action") or "") - _STOP
    action_ok = bool(action_need) and len(action_need & words) >= max(1, len(action_need) // 2)
    sign_share = sum(f["identified"] for f in found) / len(found) if found else None
    return {"signs": found, "sign_recall": sign_share, "action": action_ok,
            "correct": action_ok and (sign_share is None or sign_share == 1.0)}


def accuracy_by(rows: Iterable[Mapping[str, Any]], key: str) -> dict[str, dict[str, float]]:
    """Accuracy and count of scored rows grouped by one field (a list field counts the row under each value)."""
    groups: dict[str, list[bool]] = {}
    for r in rows:
        values = r.get(key)
        for v in values if isinstance(values, (list, tuple)) else [values]:
            groups.setdefault(str(v), []).append(bool(r.get("correct")))
    return {k: {"accuracy": round(sum(v) / len(v), 4), "n": len(v)} for k, v in sorted(groups.items())}
