"""What a reader sees of a page run by AppTest, and the number problems issue 33 names in it.

:func:`page_text` gathers every text of a page (titles, markdown, captions, alerts, metrics'
labels, values and deltas, expander, button and widget labels, tooltips); :func:`number_problems`
lists what a manager should not read there: ``None``/``nan``/``NaN``, scientific notation
(``e+0``, ``e-05``), a number with more than 4 significant digits after its decimal point, and a
count of 1,000 or more written without thousands separators.
"""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

# element types whose ``value`` / ``label`` / ``help`` a reader sees
_VALUE_TYPES = ("title", "header", "subheader", "markdown", "caption", "info", "warning",
                "error", "success", "exception", "latex", "code")
_LABEL_TYPES = ("button", "checkbox", "toggle", "radio", "selectbox", "multiselect", "slider",
                "select_slider", "number_input", "text_input", "text_area", "expander",
                "download_button", "tabs")

#: a number as written in text: thousands-separated or plain, with an optional decimal part
_NUMBER = re.compile(r"(?<![\w.,])-?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")
_MISSING = re.compile(r"(?<![\w`])(None(?! of)|nan|NaN|NaT|inf)(?![\w`])")
_SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")
# text that legitimately holds a long number: years, versions, code spans, file names, hashes
_CODE = re.compile(r"`[^`]*`|\b(?:19|20)\d\d\b|\bv?\d+\.\d+\.\d+\b|#\d+|\w+\.[A-Za-z][A-Za-z0-9]{1,3}\b")


def table_cells(at: AppTest) -> list[str]:
    """The text of every visible cell of the page's tables, as the browser draws it
    (:func:`tests.app.conftest.shown_cells`: a missing value is the table's placeholder)."""
    from tests.app.conftest import shown_cells

    out: list[str] = []
    for el in at.dataframe:
        out += [str(v) for v in shown_cells(el).to_numpy().ravel()]
    return out


def page_text(at: AppTest) -> list[str]:
    """Every text of the page a reader sees, one string per element."""
    out: list[str] = []
    for kind in _VALUE_TYPES:
        for el in at.get(kind):
            out.append(str(getattr(el, "value", "") or ""))
            help_text = getattr(el.proto, "help", "") if hasattr(el, "proto") else ""
            if help_text:
                out.append(help_text)
    for m in at.get("metric"):
        out += [m.label, str(m.value), str(m.delta or "")]
        if m.proto.help:
            out.append(m.proto.help)
    for kind in _LABEL_TYPES:
        for el in at.get(kind):
            label = getattr(el, "label", None)
            if label:
                out.append(str(label))
            help_text = getattr(el, "help", None)
            if help_text:
                out.append(str(help_text))
    return [t for t in out if t]


def _significant(number: str) -> int:
    return len(number.replace(",", "").replace(".", "").replace("-", "").lstrip("0"))


def number_problems(texts: list[str]) -> list[str]:
    """The problems of :mod:`this module's <tests.app.page_text>` docstring, each with the text
    around it."""
    problems: list[str] = []
    for text in texts:
        plain = _CODE.sub(" ", text)
        for m in _MISSING.finditer(plain):
            problems.append(f"{m.group(0)!r} in {_around(plain, m)!r}")
        for m in _SCIENTIFIC.finditer(plain):
            problems.append(f"scientific notation in {_around(plain, m)!r}")
        for m in _NUMBER.finditer(plain):
            whole, frac = m.group(1), m.group(2) or ""
            if frac and _significant(whole + frac) > 4:
                problems.append(f"{m.group(0)} has more than 4 significant digits in "
                                f"{_around(plain, m)!r}")
            elif not frac and "," not in whole and len(whole.lstrip("-")) >= 4:
                problems.append(f"{m.group(0)} without thousands separators in "
                                f"{_around(plain, m)!r}")
    return problems


def _around(text: str, m: re.Match) -> str:
    return text[max(0, m.start() - 50): m.end() + 50]
