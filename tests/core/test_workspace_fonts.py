"""core.workspace.fonts: the CJK font the report embeds (issue 25): what the bundled subset
covers, and the per-report subset (exactly the report's CJK characters, real outlines)."""

from __future__ import annotations

import base64
import io
import re

from fontTools.pens.boundsPen import BoundsPen
from fontTools.ttLib import TTFont

from core.workspace.fonts import CJK_FAMILY, CJK_FONT, cjk_characters, cjk_font_face


def _embedded(face: str) -> TTFont:
    data = re.search(r"base64,([A-Za-z0-9+/=]+)\)", face).group(1)
    return TTFont(io.BytesIO(base64.b64decode(data)))


def _bounds(font: TTFont, char: str):
    gs = font.getGlyphSet()
    pen = BoundsPen(gs)
    gs[font.getBestCmap()[ord(char)]].draw(pen)
    return pen.bounds


def test_cjk_characters_finds_kana_kanji_hangul_and_escapes():
    assert cjk_characters("plain ASCII, é, ü, — and ½") == ""
    assert cjk_characters("日本語のテキスト") == "".join(sorted(set("日本語のテキスト")))
    assert cjk_characters("한국어 and 中文") == "".join(sorted("한국어中文"))
    # plotly's figure JSON writes non-ASCII as \uXXXX
    assert cjk_characters('{"y": ["\\u65e5\\u672c"]}') == "".join(sorted("日本"))
    assert cjk_characters("、。「」ＡＢ") == "".join(sorted("、。「」ＡＢ"))


def test_bundled_font_covers_the_three_national_sets():
    font = TTFont(CJK_FONT)
    cmap = font.getBestCmap()
    assert font["name"].getDebugName(1) == "Noto Sans CJK JP"
    assert "Open Font License" in font["name"].getDebugName(13)
    assert CJK_FONT.stat().st_size < 5 * 2**20  # a few MB in the repository
    # every kana and kanji of JIS X 0208, every hanzi of GB 2312, every hangul syllable and
    # hanja of KS X 1001, read off Python's codecs (row 0x88 of Shift-JIS starts the kanji)
    for codec, lead in (("shift_jis", range(0x88, 0xEB)), ("gb2312", range(0xB0, 0xF8)),
                        ("euc_kr", range(0xB0, 0xFE))):
        missing = []
        for a in lead:
            for b in range(0x40, 0xFF):
                try:
                    c = bytes([a, b]).decode(codec)
                except UnicodeDecodeError:
                    continue
                if len(c) == 1 and ord(c) > 0x2000 and ord(c) not in cmap:
                    missing.append(c)
        assert missing == [], (codec, missing[:10])
    for text in ("ひらがなカタカナ", "日本語", "简体中文", "한국어", "。、「」"):
        assert all(ord(c) in cmap for c in text), text


def test_a_report_subset_holds_exactly_its_characters_with_real_outlines():
    assert cjk_font_face("an English report, no CJK at all") == ""
    face = cjk_font_face("language = 日本語; 한국어 and ASCII")
    assert face.startswith(f"@font-face {{ font-family: '{CJK_FAMILY}';")
    assert len(face) < 20_000  # a few kB, not the 4 MB font
    sub = _embedded(face)
    assert set(sub.getBestCmap()) == {ord(c) for c in "日本語한국어"}
    full = TTFont(CJK_FONT)
    for c in "日本語한국어":
        box = _bounds(sub, c)
        assert box is not None and box[2] - box[0] > 300  # ink, most of a 1000-unit em
        assert box == _bounds(full, c)  # the same outline as the bundled font's
    # the .notdef box is kept, but the characters are not drawn with it
    assert _bounds(sub, "日") != _bounds(sub, "語")


def test_characters_outside_the_bundled_sets_are_left_to_the_system_fonts():
    # U+20B9F (an extension-B kanji, not in JIS X 0208): no face at all for it alone
    assert cjk_characters("\U00020B9F") == "\U00020B9F"
    assert cjk_font_face("\U00020B9F") == ""


def test_a_face_can_join_another_family_for_its_characters_only():
    face = cjk_font_face("日本 and Latin", family="Source Sans")
    assert face.startswith("@font-face { font-family: 'Source Sans';")
    # U+65E5 日, U+672C 本: the face applies to those two code points alone, at every weight
    assert face.endswith("unicode-range: U+65E5, U+672C; }")
    assert "font-weight: 100 900;" in face


def test_an_installed_package_has_the_font(tmp_path):
    """Issue 33: the font was found only in a checkout (beside ``core/``, not in it). It is
    package data of ``core.workspace`` now: a wheel built from the project holds it and its
    licence, where ``core.workspace.fonts`` looks for it."""
    import shutil
    import subprocess
    import sys
    import zipfile

    from pathlib import Path

    from core.workspace import fonts

    root = Path(fonts.__file__).resolve().parents[2]
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, src / name)
    shutil.copytree(root / "core", src / "core",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                          "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    where = CJK_FONT.relative_to(root).as_posix()
    assert where == "core/workspace/font_files/NotoSansCJKjp-Subset.woff"
    assert where in names and "core/workspace/font_files/OFL.txt" in names
    assert zipfile.ZipFile(wheel).read(where) == CJK_FONT.read_bytes()


def test_the_served_face_covers_every_character_the_cjk_blocks_hold():
    """The served face's unicode-range is exactly the CJK blocks cjk_characters finds: a
    character it picks is inside a range, the code points beside the blocks are not."""
    import re as _re

    from core.workspace.fonts import CJK_RANGES, cjk_characters, cjk_served_face

    face = cjk_served_face("app/static/f.woff", family="Source Sans")
    assert "font-family: 'Source Sans'" in face and "url('app/static/f.woff')" in face
    spans = [tuple(int(x, 16) for x in r[2:].split("-")) for r in CJK_RANGES]
    assert _re.search(r"unicode-range: ([^;]+);", face).group(1) == ", ".join(CJK_RANGES)

    def inside(cp: int) -> bool:
        return any(lo <= cp <= hi for lo, hi in spans)

    for lo, hi in spans:
        for cp in (lo, hi):
            assert cjk_characters(chr(cp)) == chr(cp) and inside(cp)
        for cp in (lo - 1, hi + 1):
            assert inside(cp) or cjk_characters(chr(cp)) == ""
    assert cjk_characters("検証 ok") == "検証" and all(inside(ord(c)) for c in "検証")
