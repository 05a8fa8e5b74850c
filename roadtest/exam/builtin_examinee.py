"""The builtin baseline takes the exam: NOT A VLM. It reads the frame with the VLM agent's builtin perception
(sign classifier and lamp colours) and answers from the rule catalogue, so its score shows what its
perception misses, never what the answer key says.

A sign question: the option that is the meaning of the sign it detected nearest (none detected: no answer).
An action question: the option holding the compliant phrase (the rule record's exam.comply) of every rule its
detections put in play (the signs' rules; a red or yellow lamp's red_light); among options that tie, the
first. What it cannot see (a pedestrian, a vehicle ahead) it cannot tell apart, so it guesses there.
"""

from __future__ import annotations

import re
import time
from typing import Any, Mapping, Sequence

from roadtest.agents.vlm.backends import Answer
from roadtest.exam.questions import LETTERS, action_phrases, sign_meaning

__all__ = ["BuiltinExaminee"]

_COUNTRY = re.compile(r"You are driving in ([A-Z]{2})")
_OPTION = re.compile(r"^([A-D])\. (.*)$", re.M)
# the start of a compliant phrase, before any value placeholder: enough to find it in an option
_STEM = re.compile(r"\{.*")


class BuiltinExaminee:
    """complete(messages, images, schema, timeout) -> Answer, as the VLM backends; `is_vlm` False."""

    name = "builtin"
    model = "builtin-rules (not a VLM)"
    is_vlm = False

    def __init__(self, config: Mapping[str, Any], fov: float):
        from roadtest.agents.vlm.builtin.classifier import load_classifier
        from roadtest.signs.catalogue import load_signs

        self.classifier = load_classifier(config["builtin"]["checkpoint"])
        self.fov = float(fov)
        self.signs = load_signs()

    def _perceive(self, image) -> tuple[list[Any], str]:
        from roadtest.agents.vlm.builtin.detect import find_lamp, find_signs

        return find_signs(image, self.classifier, self.fov), find_lamp(image, self.fov).state

    def _rules_seen(self, detections, lamp: str) -> set[str]:
        rules = {r for d in detections for r in (self.signs.get(d.sign_id) or {}).get("rules", [])}
        if lamp in ("red", "yellow"):
            rules.add("red_light")
        return rules

    def complete(self, messages: Sequence[Mapping[str, Any]], images: Sequence[Any], schema: Mapping[str, Any] | None,
                 timeout: float) -> Answer:
        t0 = time.perf_counter()
        prompt = str(messages[-1]["content"])
        country = (_COUNTRY.search(prompt) or [None, ""])[1]
        options = dict(_OPTION.findall(prompt))
        detections, lamp = self._perceive(images[0]) if images else ([], "none")
        if "What does the sign ahead mean" in prompt:
            text = self._sign(detections, options, country)
        elif options:
            text = self._action(self._rules_seen(detections, lamp), options)
        else:
            text = self._open(detections, lamp, country)
        return Answer(text=text, latency_s=time.perf_counter() - t0, model=self.model)

    def _sign(self, detections, options: Mapping[str, str], country: str) -> str:
        for d in detections:
            entry = self.signs.get(d.sign_id)
            if entry is None:
                continue
            meaning = sign_meaning(entry, d.value, country)
            for letter, text in options.items():
                if text.strip() == meaning:
                    return letter
        return "I cannot identify the sign."

    def _action(self, rules: set[str], options: Mapping[str, str]) -> str:
        phrases = action_phrases()
        stems = [_STEM.sub("", phrases[r]["comply"]).strip().lower() for r in sorted(rules) if r in phrases]
        scored = [(-sum(stem in text.lower() for stem in stems), letter) for letter, text in options.items()]
        return min(scored)[1] if scored else LETTERS[0]

    def _open(self, detections, lamp: str, country: str) -> str:
        seen = [sign_meaning(self.signs[d.sign_id], d.value, country) for d in detections if d.sign_id in self.signs]
        rules = self._rules_seen(detections, lamp)
        phrases = action_phrases()
        act = "; ".join(_STEM.sub("", phrases[r]["comply"]).strip() for r in sorted(rules) if r in phrases)
        return f"Signs: {'; '.join(seen) or 'none seen'}. Required: {act or 'drive on normally'}."

    def close(self) -> None:
        pass
