"""A CJK font for the stakeholder report, embedded only when the report needs it (issue 25).

Japanese, Chinese or Korean text in the data (a group's name, a class) showed as boxes on a
machine without a CJK font. The repository bundles a subset of Noto Sans CJK JP
(``core/workspace/font_files/NotoSansCJKjp-Subset.woff``, SIL OFL 1.1, 4.1 MB: the characters of JIS X 0208,
GB 2312 and KS X 1001, see ``assets/fonts/README.md``). A report whose text holds CJK characters
embeds, as a base64 ``@font-face``, a subset of it cut at report time with fontTools to exactly
those characters (a few kB); a report without any embeds nothing.
"""

from __future__ import annotations

import base64
import io
import re
from functools import lru_cache
from pathlib import Path

__all__ = ["CJK_FAMILY", "CJK_FONT", "cjk_characters", "cjk_font_face"]

#: the family name of the embedded font in the report's CSS and figures
CJK_FAMILY = "HMCEval CJK"
#: the bundled font file
#: (package data of ``core.workspace``, so an installed package finds it as a checkout does;
#: its README and build script are in ``assets/fonts/``)
CJK_FONT = Path(__file__).resolve().parent / "font_files" / "NotoSansCJKjp-Subset.woff"

#: CJK blocks: radicals to Yi (U+2E80-A4CF, kana, punctuation, ideographs, Hangul jamo), Hangul
#: syllables, compatibility ideographs, vertical/compatibility forms, full-width forms,
#: Hangul jamo and the ideograph extensions beyond the BMP
_CJK = re.compile("[\u1100-\u11ff\u2e80-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufe10-\ufe1f"
                  "\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003134f]")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def cjk_characters(text: str) -> str:
    """The distinct CJK characters of ``text``, sorted; ``\\uXXXX`` escapes (plotly's figure
    JSON writes non-ASCII text so) count as the characters they stand for.

    >>> cjk_characters('language = 日本語, "\\\\u4e2d" and 日')
    '中日本語'
    """
    decoded = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return "".join(sorted(set(_CJK.findall(decoded))))


#: the same blocks as CSS ``unicode-range`` values
CJK_RANGES = ("U+1100-11FF", "U+2E80-A4CF", "U+AC00-D7AF", "U+F900-FAFF", "U+FE10-FE1F",
              "U+FE30-FE4F", "U+FF00-FFEF", "U+20000-3134F")


def cjk_served_face(url: str, *, family: str) -> str:
    """The CSS ``@font-face`` giving ``family`` the bundled font's glyphs for every CJK
    character, the font fetched from ``url`` (where a server hands out the bundled file).

    Its descriptors are :func:`cjk_font_face`'s (every weight, normal style), so of two such
    faces of one family the one declared later is tried first. Its ``unicode-range`` is the
    CJK blocks, so a browser fetches the file (4.1 MB) only for a
    page that draws a CJK character, and every other character keeps ``family``'s own faces:
    free text of any length in any table, chart or caption, with no glyphs sent per page run.
    """
    return (f"@font-face {{ font-family: '{family}'; font-style: normal; font-weight: 100 900; "
            f"src: url('{url}') format('woff'); font-display: swap; "
            f"unicode-range: {', '.join(CJK_RANGES)}; }}")


@lru_cache(maxsize=1)
def _font_bytes() -> bytes:
    from core.errors import DataError

    try:
        return CJK_FONT.read_bytes()
    except OSError as exc:
        raise DataError(f"the report's CJK font {CJK_FONT} cannot be read ({exc}); it is part "
                        "of the package (core/workspace/font_files): reinstall HMCEval Studio") from None


def cjk_font_face(text: str, *, family: str = CJK_FAMILY) -> str:
    """The CSS ``@font-face`` of ``family`` holding the glyphs of the CJK characters of
    ``text`` (a WOFF subset of the bundled font, base64), or ``""`` when ``text`` has none.

    The face declares the ``unicode-range`` of exactly those characters, so it can join an
    existing family (the app's "Source Sans") for them alone, leaving every other character to
    that family's own faces. Characters the bundled font lacks (outside JIS X 0208, GB 2312 and
    KS X 1001) are left to the reader's own fonts: the report's font stack names the usual CJK
    system faces after it.
    """
    chars = cjk_characters(text)
    if not chars:
        return ""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(_font_bytes()))
    covered = [c for c in chars if ord(c) in font.getBestCmap()]
    if not covered:
        return ""
    opts = subset.Options()
    opts.notdef_outline = True
    opts.hinting = False
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep the copyright and the licence
    opts.name_languages = [0x409]
    sub = subset.Subsetter(opts)
    sub.populate(text="".join(covered))
    sub.subset(font)
    font.flavor = "woff"
    out = io.BytesIO()
    font.save(out)
    data = base64.b64encode(out.getvalue()).decode("ascii")
    ranges = ", ".join(f"U+{ord(c):X}" for c in covered)
    return (f"@font-face {{ font-family: '{family}'; font-style: normal; font-weight: 100 900; "
            f"src: url(data:font/woff;base64,{data}) format('woff'); unicode-range: {ranges}; }}")
