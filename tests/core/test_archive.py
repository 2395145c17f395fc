"""core.archive: the one zip reader; limits counted from the bytes actually decompressed."""

from __future__ import annotations

import io
import struct
import time
import zipfile
from pathlib import Path

import pytest

import core.archive as archive
from core.archive import read_zip_members
from core.errors import DataError


def _zip(entries: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _patch_header(data: bytes, member: str, *, size: int | None = None, flags: int | None = None) -> bytes:
    """Rewrite what the headers of ``member`` declare (its local header and its central directory
    entry): the uncompressed size, or the general-purpose flags. The data stay as they are."""
    b = bytearray(data)
    name = member.encode()
    # central directory entries: signature PK\x01\x02, flags at +8, size at +24, name at +46
    i = b.find(b"PK\x01\x02")
    while i != -1:
        n = struct.unpack_from("<H", b, i + 28)[0]
        if bytes(b[i + 46:i + 46 + n]) == name:
            if size is not None:
                struct.pack_into("<I", b, i + 24, size)
            if flags is not None:
                struct.pack_into("<H", b, i + 8, flags)
        i = b.find(b"PK\x01\x02", i + 4)
    # local headers: signature PK\x03\x04, flags at +6, size at +22, name at +30
    j = b.find(b"PK\x03\x04")
    while j != -1:
        n = struct.unpack_from("<H", b, j + 26)[0]
        if bytes(b[j + 30:j + 30 + n]) == name:
            if size is not None:
                struct.pack_into("<I", b, j + 22, size)
            if flags is not None:
                struct.pack_into("<H", b, j + 6, flags)
        j = b.find(b"PK\x03\x04", j + 4)
    return bytes(b)


def _declared_size(data: bytes, member: str) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.getinfo(member).file_size


def test_members_filtered_sorted_and_skipped(tmp_path: Path):
    data = _zip({"b/two.json": b'{"b": 2}', "a/one.JSON": b'{"a": 1}', "notes.txt": b"hello",
                 "__MACOSX/a/._one.json": b"\x00junk", "a/.hidden.json": b"{}", "dir/": b""})
    got = read_zip_members(data, suffixes=(".json",), source="up.zip")
    assert list(got.members) == ["a/one.JSON", "b/two.json"]  # case-insensitive suffix, sorted
    assert got.members["b/two.json"] == b'{"b": 2}'
    assert got.skipped == ("notes.txt",) and got.errors == {}
    every = read_zip_members(data)
    assert list(every.members) == ["a/one.JSON", "b/two.json", "notes.txt"] and every.skipped == ()
    path = tmp_path / "up.zip"
    path.write_bytes(data)
    assert read_zip_members(path, suffixes=[".json"]).members == got.members
    assert read_zip_members(str(path), suffixes=[".json"]).members == got.members
    stored = read_zip_members(_zip({"x.json": b"[1]"}, method=zipfile.ZIP_STORED))
    assert stored.members == {"x.json": b"[1]"}


def test_not_a_zip_and_missing_path(tmp_path: Path):
    with pytest.raises(DataError, match=r"^up\.zip: not a valid zip archive"):
        read_zip_members(b"PK\x03\x04 not really a zip", source="up.zip")
    with pytest.raises(DataError, match=r"^archive\.zip: not a valid zip archive"):
        read_zip_members(b"")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"garbage")
    with pytest.raises(DataError, match=rf"^{bad}: not a valid zip archive"):
        read_zip_members(bad)
    with pytest.raises(FileNotFoundError):
        read_zip_members(tmp_path / "missing.zip")
    with pytest.raises(TypeError):
        read_zip_members(12)  # type: ignore[arg-type]


def test_header_understating_the_size_lets_no_bomb_through():
    """A 32 MiB member of zeros (32 KiB compressed) whose headers claim 1,000 bytes: never more
    than the declared bytes come out, and the member is refused by name (its CRC fails)."""
    big = b"\x00" * (32 * 2**20)
    forged = _patch_header(_zip({"ok.json": b"{}", "bomb.json": big}), "bomb.json", size=1000)
    assert _declared_size(forged, "bomb.json") == 1000
    assert len(forged) < 100_000
    with pytest.raises(DataError, match=r"^up\.zip:bomb\.json: cannot read the zip member \(Bad CRC-32"):
        read_zip_members(forged, source="up.zip")
    kept = read_zip_members(forged, source="up.zip", keep_member_errors=True)
    assert kept.members == {"ok.json": b"{}"} and list(kept.errors) == ["bomb.json"]


def test_limits_count_decompressed_bytes_not_declared_sizes():
    """A small member whose headers claim 4 GB is read for what it holds (a header-based check
    would refuse it), and a member above the per-file limit is refused however small its
    headers say it is."""
    forged = _patch_header(_zip({"small.json": b'{"a": 1}'}), "small.json", size=4_000_000_000)
    assert _declared_size(forged, "small.json") == 4_000_000_000
    assert read_zip_members(forged).members == {"small.json": b'{"a": 1}'}
    over = b" " * (archive.MAX_MEMBER_BYTES + 1)  # the real limit: 64 MiB + 1 byte of spaces
    data = _zip({"a.json": b"[]", "huge.json": over})
    assert len(data) < 1_000_000
    start = time.perf_counter()
    with pytest.raises(DataError, match=r"^z\.zip:huge\.json: the member is more than 67,108,864 bytes "
                                        r"\(64\.0 MiB\) once decompressed"):
        read_zip_members(data, source="z.zip")
    kept = read_zip_members(data, source="z.zip", keep_member_errors=True)
    assert kept.members == {"a.json": b"[]"} and list(kept.errors) == ["huge.json"]
    assert time.perf_counter() - start < 20


def test_total_cap_counts_every_decompressed_byte(monkeypatch):
    """Highly compressible members, each under the per-file limit, above the total cap."""
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 3 * 2**20)
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 5 * 2**20)
    members = {f"m{k}.json": b"0" * (2 * 2**20) for k in range(3)}  # 6 MiB in total, ~6 KiB zipped
    data = _zip(members)
    with pytest.raises(DataError, match=r"^runs\.zip: the members read from the zip archive exceed "
                                        r"5,242,880 bytes \(5\.0 MiB\) once decompressed \(at m2\.json\)"):
        read_zip_members(data, source="runs.zip")
    with pytest.raises(DataError, match="exceed 5,242,880 bytes"):  # the total is never a member error
        read_zip_members(data, source="runs.zip", keep_member_errors=True)
    # members refused for their own size still count: 3 members of 4 MiB each, cap 3 MiB per file
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 8 * 2**20)
    refused = _zip({f"r{k}.json": b"0" * (4 * 2**20) for k in range(3)})
    with pytest.raises(DataError, match=r"exceed 8,388,608 bytes .* \(at r2\.json\)"):
        read_zip_members(refused, source="runs.zip", keep_member_errors=True)
    # only the members read count: the skipped ones are never decompressed
    assert read_zip_members(data, suffixes=("m0.json",)).skipped == ("m1.json", "m2.json")


def test_member_count_and_archive_size(monkeypatch, tmp_path: Path):
    data = _zip({f"f{k}.json": b"{}" for k in range(4)} | {"d/": b""})
    monkeypatch.setattr(archive, "MAX_MEMBERS", 4)
    with pytest.raises(DataError, match=r"^a\.zip: the zip archive declares 5 entries, above the limit of 4$"):
        read_zip_members(data, source="a.zip")
    # an end record that understates the count: the directory itself is walked (up to limit + 1)
    forged = bytearray(data)
    end = forged.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", forged, end + 8, 2, 2)
    with pytest.raises(DataError, match=r"^a\.zip: the zip archive has more than 4 entries in its directory"):
        read_zip_members(bytes(forged), source="a.zip")
    monkeypatch.setattr(archive, "MAX_MEMBERS", 5)
    assert len(read_zip_members(data).members) == 4
    monkeypatch.setattr(archive, "MAX_ARCHIVE_BYTES", len(data) - 1)
    with pytest.raises(DataError, match=rf"^a\.zip: the zip archive is {len(data):,} bytes, above the limit"):
        read_zip_members(data, source="a.zip")
    path = tmp_path / "a.zip"
    path.write_bytes(data)
    with pytest.raises(DataError, match=rf"^{path}: the zip archive is {len(data):,} bytes"):
        read_zip_members(path)


def test_encrypted_member_is_named():
    data = _patch_header(_zip({"ok.json": b"{}", "secret.json": b'{"x": 1}'}), "secret.json", flags=0x1)
    with pytest.raises(DataError, match=r"^e\.zip:secret\.json: cannot read the zip member \(.*encrypted"):
        read_zip_members(data, source="e.zip")
    kept = read_zip_members(data, source="e.zip", keep_member_errors=True)
    assert list(kept.members) == ["ok.json"] and list(kept.errors) == ["secret.json"]


def test_many_entries_refused_before_the_directory_is_parsed():
    """40,000 empty entries (zip64 directory): refused from the raw bytes, also when the end
    records understate the count, without zipfile parsing 40,000 directory entries."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for k in range(40_000):
            zf.writestr(f"{k}.json", b"")
    data = buf.getvalue()
    with pytest.raises(DataError, match=r"^m\.zip: the zip archive declares 40,000 entries, above the limit of 20,000"):
        read_zip_members(data, source="m.zip")
    forged = bytearray(data)
    struct.pack_into("<HH", forged, forged.rfind(b"PK\x05\x06") + 8, 3, 3)
    struct.pack_into("<QQ", forged, forged.rfind(b"PK\x06\x06") + 24, 3, 3)
    with zipfile.ZipFile(io.BytesIO(bytes(forged))) as zf:  # zipfile itself still sees them all
        assert len(zf.infolist()) == 40_000
    start = time.perf_counter()
    with pytest.raises(DataError, match=r"^m\.zip: the zip archive has more than 20,000 entries in its directory"):
        read_zip_members(bytes(forged), source="m.zip")
    assert time.perf_counter() - start < 2
