"""Sensitive memories (seed 000 §9.2): what counts as sensitive and how it stays private.

A memory, episode or knowledge point is sensitive when its metadata says so
(``metadata["sensitive"] is True``, with the matched categories under
``metadata["sensitive_categories"]``). The flag is set by the caller (the tools'
``sensitive`` argument), by the extraction LLM, or by the rule list below, which has
Chinese and English patterns per category.

Sensitive items are left out of search results, ``format_context`` and knowledge
sampling unless the caller asks for them (``include_sensitive=True``); log lines that
would carry their text are redacted; exports mark them; the Neo4j nodes carry a
``sensitive`` property so the Browser's saved queries can hide their text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

__all__ = [
    "CATEGORIES_KEY",
    "SENSITIVE_KEY",
    "SensitiveCategory",
    "classify",
    "is_sensitive",
    "loggable",
    "mark_sensitive",
    "with_sensitivity",
]

SENSITIVE_KEY = "sensitive"
CATEGORIES_KEY = "sensitive_categories"


class SensitiveCategory(StrEnum):
    """Kinds of personal data the rule list recognises."""

    HEALTH = "health"
    FINANCES = "finances"
    CREDENTIALS = "credentials"
    IDENTITY = "identity"


def _words(*alternatives: str) -> str:
    """An English alternation matched as whole words."""
    return r"\b(?:" + "|".join(alternatives) + r")\b"


_RULES: dict[SensitiveCategory, re.Pattern[str]] = {
    SensitiveCategory.HEALTH: re.compile(
        _words(
            r"diagnos\w*",
            r"diseases?",
            r"illness(?:es)?",
            r"cancer",
            r"tumou?rs?",
            r"diabet\w*",
            r"hiv",
            r"depression",
            r"bipolar",
            r"schizophreni\w*",
            r"anxiety disorder",
            r"psychiatri\w*",
            r"medications?",
            r"prescriptions?",
            r"antidepressants?",
            r"surgery",
            r"chemotherapy",
            r"pregnan\w*",
            r"miscarriage",
            r"hospitali[sz]ed",
            r"medical records?",
        )
        + r"|诊断|确诊|患有|患病|病情|病史|疾病|癌症|肿瘤|糖尿病|艾滋|抑郁症|焦虑症|双相"
        r"|精神科|心理医生|处方|吃药|服药|手术|化疗|怀孕|流产|住院|病历",
        re.IGNORECASE,
    ),
    SensitiveCategory.FINANCES: re.compile(
        _words(
            r"bank accounts?",
            r"account numbers?",
            r"credit cards?",
            r"debit cards?",
            r"salary",
            r"salaries",
            r"net worth",
            r"debts?",
            r"loans?",
            r"mortgages?",
            r"tax returns?",
            r"credit score",
            r"iban",
        )
        + r"|\b\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{4}\b"  # payment card number, grouped
        + r"|银行卡|银行账户|银行账号|信用卡|工资|薪水|年薪|月薪|存款|负债|欠款|贷款|房贷|个税|征信",
        re.IGNORECASE,
    ),
    SensitiveCategory.CREDENTIALS: re.compile(
        _words(
            r"passwords?",
            r"passcodes?",
            r"passwd",
            r"pin (?:codes?|numbers?)",
            r"api[ _-]?keys?",
            r"secret keys?",
            r"access tokens?",
            r"private keys?",
            r"security codes?",
            r"one[- ]time codes?",
            r"recovery phrase",
            r"seed phrase",
        )
        + r"|密码|口令|密钥|验证码|私钥|助记词",
        re.IGNORECASE,
    ),
    SensitiveCategory.IDENTITY: re.compile(
        _words(
            r"social security numbers?",
            r"ssn",
            r"passport numbers?",
            r"driver'?s licen[cs]e numbers?",
            r"national id(?: number)?",
            r"id card numbers?",
        )
        + r"|\b\d{3}-\d{2}-\d{4}\b"  # US SSN
        + r"|(?<!\d)\d{17}[\dXx](?![\dA-Za-z])"  # PRC resident identity number
        + r"|身份证|护照号|社保号|驾驶证号|驾照号",
        re.IGNORECASE,
    ),
}


def classify(text: str, categories: Iterable[SensitiveCategory | str] | None = None) -> list[str]:
    """The sensitive categories whose patterns occur in ``text`` (all categories, or the
    given ones), in a fixed order; empty when none does."""
    wanted = (
        list(SensitiveCategory)
        if categories is None
        else [SensitiveCategory(c) for c in categories]
    )
    return [c.value for c in SensitiveCategory if c in wanted and _RULES[c].search(text)]


def is_sensitive(metadata: Mapping[str, Any] | None) -> bool:
    """Whether stored metadata marks an item sensitive."""
    return bool(metadata) and metadata.get(SENSITIVE_KEY) is True  # type: ignore[union-attr]


def mark_sensitive(
    metadata: Mapping[str, Any] | None, categories: Iterable[str] = (), sensitive: bool = True
) -> dict[str, Any]:
    """A copy of ``metadata`` with the sensitivity flag (and categories) set or cleared."""
    out = dict(metadata or {})
    if sensitive:
        out[SENSITIVE_KEY] = True
        known = list(out.get(CATEGORIES_KEY) or [])
        out[CATEGORIES_KEY] = sorted({*known, *categories})
    else:
        out.pop(SENSITIVE_KEY, None)
        out.pop(CATEGORIES_KEY, None)
    return out


def loggable(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters for a log line, or a placeholder naming the
    categories when it matches a sensitive pattern (logs outlive forgetting)."""
    found = classify(text)
    if found:
        return f"[redacted {len(text)} characters: {', '.join(found)}]"
    return text[:limit]


def with_sensitivity(
    metadata: Mapping[str, Any] | None,
    text: str,
    explicit: bool | None,
    categories: Iterable[SensitiveCategory | str],
) -> dict[str, Any]:
    """Metadata for an item about to be stored: the caller's ``explicit`` choice wins;
    without one, the rule list (limited to ``categories``) decides, and an item already
    marked stays marked."""
    found = classify(text, categories)
    if explicit is False:
        return mark_sensitive(metadata, sensitive=False)
    if explicit is True or found or is_sensitive(metadata):
        return mark_sensitive(metadata, found)
    return dict(metadata or {})
