"""How fast hostile zip archives are refused by the one zip reader (``core.archive``).

Run from the project root: ``python bench/archive.py`` (about half a minute; the archives are
built in memory first, not timed). Prints the time to refuse each archive, median of 3, and its
ratio to one stable argsort of 100,000 floats timed in the same run:

- a zip bomb: one member of 1 GiB of zeros (about 1 MB compressed), above the 64 MiB per member;
- the same member with its size header forged to 1,000 bytes (zipfile reads only the declared
  bytes, so the CRC check refuses it; ``tests/core/test_archive.py`` covers the other forgery,
  a header claiming more than the member holds);
- 200,000 empty entries, above the 20,000 entries an archive may hold;
- 12 members of 60 MiB each, above the 512 MiB read from one archive.
"""

from __future__ import annotations

import io
import statistics
import struct
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.archive import read_zip_members  # noqa: E402
from core.errors import DataError  # noqa: E402
from _timing import argsort_reference as reference  # noqa: E402

MiB = 1024 * 1024


def zeros_zip(members: dict[str, int]) -> bytes:
    """A zip of members made of zeros (name -> size in bytes), written in 16 MiB chunks."""
    buf = io.BytesIO()
    chunk = bytes(16 * MiB)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, size in members.items():
            with zf.open(name, "w", force_zip64=size > 2**31) as fh:
                for start in range(0, size, len(chunk)):
                    fh.write(chunk[: min(len(chunk), size - start)])
    return buf.getvalue()


def forged(data: bytes, claimed: int) -> bytes:
    """The archive with the uncompressed size of its (one) member set to ``claimed`` in the
    local header and in the central directory."""
    raw = bytearray(data)
    local = raw.find(b"PK\x03\x04")
    struct.pack_into("<I", raw, local + 22, claimed)
    central = raw.find(b"PK\x01\x02")
    struct.pack_into("<I", raw, central + 24, claimed)
    return bytes(raw)


def many_entries(n: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for i in range(n):
            zf.writestr(f"e{i}.json", b"")
    return buf.getvalue()


def refusal_time(data: bytes, runs: int = 3) -> tuple[float, str]:
    times, message = [], ""
    for _ in range(runs):
        t0 = time.perf_counter()
        try:
            read_zip_members(data, suffixes=(".json",), source="bench.zip")
        except DataError as exc:
            message = str(exc)
        else:
            raise SystemExit("the archive was not refused")
        times.append(time.perf_counter() - t0)
    return statistics.median(times), message


def main() -> None:
    bomb = zeros_zip({"bomb.json": 1024 * MiB})
    cases = [
        ("1 GiB member (zip bomb)", bomb),
        ("1 GiB member, size header forged to 1,000 B", forged(bomb, 1000)),
        ("200,000 entries", many_entries(200_000)),
        ("12 members of 60 MiB", zeros_zip({f"m{i}.json": 60 * MiB for i in range(12)})),
    ]
    ref = reference()
    print(f"reference: one stable argsort of 100,000 floats = {ref * 1e3:.3f} ms (median)")
    for label, data in cases:
        t, message = refusal_time(data)
        print(f"{label:<45} {len(data) / MiB:7.1f} MiB zipped  refused in {t:7.3f} s "
              f"({t / ref:,.1f}x ref): {message[:90]}")


if __name__ == "__main__":
    main()
