"""Build ``NotoSansCJKjp-Subset.woff``, the CJK font the stakeholder report embeds (issue 25).

Source: Noto Sans CJK JP Regular (face 0 of ``NotoSansCJK-Regular.ttc``, version 2.004), as
Debian's package ``fonts-noto-cjk`` (1:20220127+repack1-1) ships it: ``apt-get download
fonts-noto-cjk`` and ``dpkg-deb -x`` it, then::

    python assets/fonts/build_cjk_subset.py /path/to/NotoSansCJK-Regular.ttc

Kept: every character of the three national character sets, found with Python's own codecs
(no list downloaded): JIS X 0208 (``shift_jis``: kana and 6,355 kanji), GB 2312 (``gb2312``:
6,763 simplified hanzi) and KS X 1001 (``euc_kr``: 2,350 hangul syllables and 4,888 hanja),
above U+2000 (Latin text keeps the page's own fonts), plus the CJK punctuation block
(U+3000-30FF), compatibility jamo (U+3130-318F) and the full-width forms (U+FF00-FFEF):
13,924 code points asked, 13,891 found in the font. Hinting is dropped (the report is read on screens and printed to PDF);
the OpenType layout features fontTools keeps by default stay. Licence: SIL OFL 1.1 (OFL.txt).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

OUT = (Path(__file__).resolve().parents[2] / "core" / "workspace" / "font_files"
       / "NotoSansCJKjp-Subset.woff")


def national_sets() -> set[int]:
    """The code points of JIS X 0208, GB 2312 and KS X 1001 above U+2000, plus CJK punctuation,
    compatibility jamo and full-width forms."""
    out = set(range(0x3000, 0x3100)) | set(range(0x3130, 0x3190)) | set(range(0xFF00, 0xFFF0))
    for codec in ("shift_jis", "gb2312", "euc_kr"):
        for a in range(0x81, 0xFF):
            for b in range(0x40, 0xFF):
                try:
                    c = bytes([a, b]).decode(codec)
                except UnicodeDecodeError:
                    continue
                if len(c) == 1 and ord(c) > 0x2000:
                    out.add(ord(c))
    return out


def main(ttc: str) -> None:
    font = TTCollection(ttc).fonts[0]
    assert font["name"].getDebugName(4) == "Noto Sans CJK JP", font["name"].getDebugName(4)
    opts = subset.Options()
    opts.notdef_outline = True  # a missing glyph shows the font's own box
    opts.hinting = False
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # copyright, names, version, licence
    opts.name_languages = [0x409]
    opts.flavor = "woff"
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=national_sets())
    sub.subset(font)
    font.flavor = "woff"
    font.save(str(OUT))
    print(f"{OUT.name}: {len(font.getBestCmap()):,} code points, {OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
