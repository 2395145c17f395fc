"""Plotly figure builders, one module per area (pure functions: data in, figure out).

:func:`plain_text`: a data value (a class, a group, a column name) as plotly text that shows it
as written. Plotly draws a subset of HTML in every text it shows (``<b>``, ``<i>``, ``<a
href>``, ``<br>`` ...), so a class named ``<b>B</b>`` would be drawn bold and a group named
like a link would be a live link; its entities (``&lt;``, ``&gt;``, ``&amp;``) are drawn as the
characters.
"""

from __future__ import annotations

__all__ = ["plain_text"]


def plain_text(value) -> str:
    """``str(value)`` with ``&``, ``<`` and ``>`` as entities: plotly draws the text as written.

    >>> plain_text("<b>B</b> & co")
    '&lt;b&gt;B&lt;/b&gt; &amp; co'
    """
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
