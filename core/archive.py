"""The one reader of zip archives: members read in chunks under one set of limits.

Every loader that accepts a zip archive (clembench episodes, ToolTalk conversations) reads it
with :func:`read_zip_members`. The limits are counted from the bytes actually decompressed,
never from the sizes an archive declares in its headers: a member whose header understates
its size cannot bring more data through (Python's reader stops at the declared size and the
CRC check then fails; either way the member is refused), and a member whose header overstates
its size is read for what it holds.

Limits (one set for the whole library; a pathological archive is refused within seconds):

* ``MAX_ARCHIVE_BYTES``: the archive file itself (compressed), 256 MiB;
* ``MAX_MEMBERS``: entries in the archive's directory (files, folders, anything), 20,000,
  checked from the raw directory before it is parsed (a declared count may lie);
* ``MAX_MEMBER_BYTES``: one member once decompressed, 64 MiB;
* ``MAX_TOTAL_BYTES``: all members read from one archive once decompressed, 512 MiB.
"""

from __future__ import annotations

import io
import lzma
import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from core.errors import DataError

__all__ = [
    "MAX_ARCHIVE_BYTES", "MAX_MEMBERS", "MAX_MEMBER_BYTES", "MAX_TOTAL_BYTES", "ZipMembers",
    "read_zip_members",
]

#: Largest zip archive accepted (its own, compressed size), in bytes.
MAX_ARCHIVE_BYTES: int = 256 * 1024 * 1024
#: Largest number of entries in one archive's directory.
MAX_MEMBERS: int = 20_000
#: Largest member accepted, counted from the bytes actually decompressed.
MAX_MEMBER_BYTES: int = 64 * 1024 * 1024
#: Largest total of the members read from one archive, counted from the bytes decompressed.
MAX_TOTAL_BYTES: int = 512 * 1024 * 1024

_CHUNK = 1024 * 1024
# what a corrupt, encrypted or unsupported member raises while it is read
_READ_ERRORS = (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, OSError, ValueError,
                zlib.error, lzma.LZMAError)


@dataclass(frozen=True)
class ZipMembers:
    """What :func:`read_zip_members` found in an archive.

    Attributes
    ----------
    members : dict of str to bytes
        Member name (``/``-separated) -> its content, for the members that match the suffixes,
        sorted by name.
    errors : dict of str to DataError
        Member name -> why it could not be read (only with ``keep_member_errors=True``;
        otherwise the first such error is raised).
    skipped : tuple of str
        Members that do not match the suffixes: listed, never decompressed. Folders, macOS
        ``__MACOSX/`` entries and hidden files (name starting with ``.``) are left out.
    """

    members: dict[str, bytes] = field(default_factory=dict)
    errors: dict[str, DataError] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()


def _mb(n: int) -> str:
    return f"{n:,} bytes ({n / 2**20:.1f} MiB)" if n >= 2**20 else f"{n:,} bytes"


def _is_junk(name: str) -> bool:
    return name.startswith("__MACOSX/") or PurePosixPath(name).name.startswith(".")


def _count_entries(fh, size: int, limit: int) -> tuple[int, bool] | None:
    """Entries of an archive's central directory, counted before :mod:`zipfile` parses it.

    ``zipfile`` reads the whole directory when it opens an archive, however many entries it
    holds (seconds per 100,000), so the count is checked first from the raw bytes: the count
    the end record declares (zip64 too), then the directory's own entries, walked header by
    header and no further than ``limit + 1`` (a declared count may lie). Returns ``(count,
    declared)``, or None when the end record is not found (``zipfile`` then says why).
    """
    tail_len = min(size, 22 + 65_535)
    fh.seek(size - tail_len)
    tail = fh.read(tail_len)
    i = tail.rfind(b"PK\x05\x06")
    if i < 0 or len(tail) - i < 22:
        return None
    eocd = size - tail_len + i
    declared, cd_size = struct.unpack_from("<HI", tail, i + 10)
    cd_end = eocd
    if i >= 20 and tail[i - 20:i - 16] == b"PK\x06\x07":
        # a zip64 locator precedes the end record: the counts that zipfile uses sit in the
        # zip64 end record just before it, and the directory ends there
        rec = eocd - 20 - 56
        if rec < 0:
            return None
        fh.seek(rec)
        head = fh.read(56)
        if len(head) < 56 or head[:4] != b"PK\x06\x06":
            return None
        declared, cd_size = struct.unpack_from("<QQ", head, 32)
        cd_end = rec
    if declared > limit:
        return declared, True
    cd_start = cd_end - cd_size
    if cd_start < 0:
        return None
    fh.seek(cd_start)
    cd = fh.read(cd_size)
    pos = count = 0
    while pos + 46 <= len(cd) and count <= limit:
        if cd[pos:pos + 4] != b"PK\x01\x02":
            break
        n_name, n_extra, n_comment = struct.unpack_from("<HHH", cd, pos + 28)
        pos += 46 + n_name + n_extra + n_comment
        count += 1
    return count, False


def read_zip_members(
    archive: bytes | bytearray | memoryview | str | Path,
    *,
    suffixes: Sequence[str] | None = None,
    source: str | None = None,
    keep_member_errors: bool = False,
) -> ZipMembers:
    """Read the members of a zip archive, with the limits counted from decompressed bytes.

    Parameters
    ----------
    archive : bytes or path
        The archive's content, or the path of the archive file.
    suffixes : sequence of str, optional
        Read only the members whose name ends with one of these (case-insensitive), e.g.
        ``(".json",)`` or ``("interactions.json", "scores.json")``; the others are listed in
        ``skipped``. Default: every member.
    source : str, optional
        The archive's name in error messages (default: the path, or ``"archive.zip"``).
    keep_member_errors : bool, default=False
        Record a member that cannot be read (corrupt, encrypted, above ``MAX_MEMBER_BYTES``) in
        ``errors`` and go on with the others, instead of raising. Limits on the whole archive
        always raise.

    Returns
    -------
    ZipMembers

    Raises
    ------
    DataError
        Not a zip archive, an archive above ``MAX_ARCHIVE_BYTES`` or with more than
        ``MAX_MEMBERS`` entries, members whose decompressed bytes exceed ``MAX_TOTAL_BYTES`` in
        total, or (without ``keep_member_errors``) a member that cannot be read or exceeds
        ``MAX_MEMBER_BYTES``. The message starts with ``"<archive>: "`` or
        ``"<archive>:<member>: "``.
    FileNotFoundError
        ``archive`` is a path that does not exist.
    """
    # the limits are read at call time (one set, module-wide)
    max_archive, max_members = MAX_ARCHIVE_BYTES, MAX_MEMBERS
    max_member, max_total = MAX_MEMBER_BYTES, MAX_TOTAL_BYTES
    if isinstance(archive, (bytes, bytearray, memoryview)):
        name = source or "archive.zip"
        size = len(archive)
        opened: io.BytesIO | Path = io.BytesIO(bytes(archive))
    elif isinstance(archive, (str, Path)):
        path = Path(archive)
        name = source or str(path)
        size = path.stat().st_size
        opened = path
    else:
        raise TypeError(f"archive must be bytes or a path, not {type(archive).__name__}")
    if size > max_archive:
        raise DataError(f"{name}: the zip archive is {_mb(size)}, above the limit of {_mb(max_archive)}")
    wanted = tuple(s.lower() for s in suffixes) if suffixes is not None else None
    try:
        if isinstance(opened, Path):
            with opened.open("rb") as fh:
                counted = _count_entries(fh, size, max_members)
        else:
            counted = _count_entries(opened, size, max_members)
    except OSError as exc:
        raise DataError(f"{name}: cannot read the zip archive ({exc})") from None
    if counted is not None and counted[0] > max_members:
        raise DataError(f"{name}: the zip archive " + (
            f"declares {counted[0]:,} entries, above the limit of {max_members:,}" if counted[1]
            else f"has more than {max_members:,} entries in its directory, the limit"))
    try:
        zf = zipfile.ZipFile(opened)
    except zipfile.BadZipFile:
        raise DataError(f"{name}: not a valid zip archive") from None
    except (zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as exc:
        raise DataError(f"{name}: not a valid zip archive ({exc})") from None
    except OSError as exc:
        raise DataError(f"{name}: cannot read the zip archive ({exc})") from None
    members: dict[str, bytes] = {}
    errors: dict[str, DataError] = {}
    skipped: list[str] = []
    total = 0
    with zf:
        infos = zf.infolist()
        if len(infos) > max_members:
            raise DataError(f"{name}: the zip archive has {len(infos):,} entries, above the limit of "
                            f"{max_members:,}")
        for info in sorted(infos, key=lambda i: i.filename):
            member = info.filename.replace("\\", "/")
            if info.is_dir() or member.endswith("/") or _is_junk(member):
                continue
            if wanted is not None and not member.lower().endswith(wanted):
                skipped.append(member)
                continue
            where = f"{name}:{member}"
            chunks: list[bytes] = []
            read = 0
            try:
                with zf.open(info) as fh:
                    while True:
                        chunk = fh.read(_CHUNK)
                        if not chunk:
                            break
                        read += len(chunk)
                        total += len(chunk)
                        if total > max_total:
                            raise DataError(f"{name}: the members read from the zip archive exceed "
                                            f"{_mb(max_total)} once decompressed (at {member})")
                        if read > max_member:
                            raise _MemberTooLarge()
                        chunks.append(chunk)
            except _MemberTooLarge:
                # the bytes decompressed so far still count towards the total: the work is bounded
                err = DataError(f"{where}: the member is more than {_mb(max_member)} once decompressed, "
                                "above the limit per file")
                if not keep_member_errors:
                    raise err from None
                errors[member] = err
                continue
            except DataError:
                raise
            except _READ_ERRORS as exc:
                err = DataError(f"{where}: cannot read the zip member ({exc})")
                if not keep_member_errors:
                    raise err from None
                errors[member] = err
                continue
            members[member] = b"".join(chunks)
    return ZipMembers(members=members, errors=errors, skipped=tuple(skipped))


class _MemberTooLarge(Exception):
    """Internal signal: the member being read passed ``MAX_MEMBER_BYTES``."""
