"""The one writer of every output of the package: nothing it writes destroys what was there.

Every output — the command line's ``--out`` and ``--plot``, every result's ``to_json(path)``,
:meth:`metrics.JudgedRuns.save`, the report directory and its figures — goes through this module, which looks at
what the target *is* before writing:

* a **regular file, or a path that does not exist yet**: the output is written to a temporary file beside it,
  flushed to the disk (``fsync``) and renamed over it (:func:`os.replace`, atomic on POSIX and Windows within one
  file system). An error or an interrupt (Ctrl-C, ``KeyboardInterrupt``) before the end removes the temporary
  file and leaves the target as it was: never a truncated PNG or a half-written CSV. A replaced file keeps its
  permissions; a new one gets the usual ones (``0o666`` less the umask). A **symbolic link** is written through,
  as the shell's ``>`` does: the link stays and the file it names gets the new content.
* an **existing target that is not a regular file** — a character device (``/dev/null``, a terminal), a named
  pipe (FIFO), a socket — is opened and written through, never replaced or unlinked (renaming a file over
  ``/dev/null`` would delete the device; over a FIFO, its reader would get nothing). Writing to a FIFO waits
  for its reader, as the shell does. Such a write is not atomic: an interrupt can leave part of the output.
* ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` and ``/proc/self/fd/N`` write to the process's file descriptor
  (a duplicate of it, at its current position: a log opened with ``>>`` is appended to, not truncated), as bash
  does; this works when standard output is a pipe, a terminal or a file.
* ``-`` is a file name like any other, except where the caller passes ``stdout=`` (the command line does, for
  its text outputs): then ``-`` means that stream. A binary output (``mode="wb"``: PNG, ``.npz``) is refused
  with a clear message when the stream is a terminal.
* an output into a **directory that does not exist**, or that cannot be written, is refused with
  :class:`OutputError` naming the directory (an :class:`OSError`, so callers that catch those keep working).

:func:`write_csv` is the one CSV writer: text cells (system names, run names, topic ids, …) that a spreadsheet
would run as a formula are neutralised (:func:`csv_safe`, OWASP's advice), unless ``raw=True``; the package's readers
undo exactly that (:func:`csv_unsafe`).

Example
-------
>>> import os, tempfile
>>> from gtheory.kit.output import open_output
>>> d = tempfile.mkdtemp()
>>> with open_output(os.path.join(d, "scores.csv")) as fh:
...     _ = fh.write("system,topic,score\\n")
>>> sorted(os.listdir(d))
['scores.csv']
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Literal, Union

__all__ = ["OutputError", "TargetKind", "target_kind", "open_output", "output_path", "output_directory",
           "write_text", "write_bytes", "csv_safe", "csv_unsafe", "write_csv", "CSV_TRIGGERS"]

PathLike = Union[str, "os.PathLike[str]"]
Commit = Callable[[Path], None]
#: what a path names, as :func:`target_kind` tells: ``"stdout"`` (``-`` where the caller allows it), ``"fd"``
#: (``/dev/stdout``, ``/dev/fd/N``, ...), ``"regular"`` (an existing regular file, symbolic links followed),
#: ``"new"`` (nothing there yet), ``"special"`` (a device, FIFO or socket) or ``"directory"``
TargetKind = Literal["stdout", "fd", "regular", "new", "special", "directory"]

_FD_PATH = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d+)")
_FD_NAMES = {"/dev/stdout": 1, "/dev/stderr": 2}


class OutputError(OSError):
    """An output that cannot be written where it was asked to go (a missing or read-only directory, a directory
    given as a file, a socket, a binary output onto a terminal). Its message names the path and the problem."""


def _fd_of(path: str) -> int | None:
    """The file descriptor a ``/dev/stdout``-like path names, or None."""
    if path in _FD_NAMES:
        return _FD_NAMES[path]
    m = _FD_PATH.fullmatch(path)
    return int(m.group(1)) if m else None


def target_kind(path: PathLike, *, dash: bool = False) -> TargetKind:
    """What writing to ``path`` would write to (see the module's docstring); ``dash``: ``-`` means standard output.

    Symbolic links are followed (a link to ``/dev/null`` is ``"special"``; a dangling link is ``"new"``: the file
    it names is created)."""
    s = os.fspath(path)
    if dash and s == "-":
        return "stdout"
    if _fd_of(s) is not None:
        return "fd"
    try:
        mode = os.stat(s).st_mode
    except FileNotFoundError:
        return "new"
    except NotADirectoryError:
        return "new"  # a parent is a file: refused with a clear message when written
    if stat.S_ISREG(mode):
        return "regular"
    if stat.S_ISDIR(mode):
        return "directory"
    return "special"


# --------------------------------------------------------------------------------------- regular files
def _resolved(path: PathLike) -> Path:
    """The file a write to ``path`` changes: a symbolic link is written through (as the shell's ``>`` does), so the
    link stays a link and the file it points to gets the new content; the temporary file goes beside that file."""
    target = Path(path)
    return Path(os.path.realpath(target)) if target.is_symlink() else target


def _check_directory(path: PathLike, target: Path) -> Path:
    """The directory the temporary file of ``target`` goes into, refused with a clear message (naming the
    directory, not a temporary file's name) when it does not exist or cannot be written."""
    parent = target.parent if str(target.parent) else Path(".")
    shown = f"{os.fspath(path)}" + (f" (a link to {target})" if os.fspath(target) != os.fspath(path) else "")
    if not parent.exists():
        raise OutputError(f"cannot write {shown}: directory '{parent}' does not exist; create it first.")
    if not parent.is_dir():
        raise OutputError(f"cannot write {shown}: '{parent}' is not a directory.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {shown}: directory '{parent}' is not writable (the output is written to "
                          "a temporary file there and renamed).")
    return parent


def _sync(tmp: Path) -> None:
    """Flush ``tmp``'s data to the disk before it is renamed over the target, so that a crash right after the
    rename cannot leave an empty or partial file under the target's name."""
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _publish_mode(tmp: Path, target: Path, *, directory: bool = False) -> None:
    """Give the temporary file the permissions of the file it replaces, or the usual ones for a new file
    (``mkstemp`` creates it readable by its owner only)."""
    try:
        mode = target.stat().st_mode & 0o7777 if target.exists() and not directory else None
    except OSError:
        mode = None
    if mode is None:
        mode = (0o777 if directory else 0o666) & ~_umask()
    os.chmod(tmp, mode)


@contextmanager
def _atomic_path(path: PathLike, on_commit: Commit | None) -> Iterator[Path]:
    target = _resolved(path)
    if target.is_dir():
        raise OutputError(f"cannot write {os.fspath(path)}: it is a directory; give a file name in it.")
    parent = _check_directory(path, target)
    fd, name = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.",
                                suffix=".tmp" + "".join(target.suffixes[-1:]))
    os.close(fd)
    tmp = Path(name)
    try:
        with _named(path):
            yield tmp
            _publish_mode(tmp, target)
            _sync(tmp)
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if on_commit is not None:
        on_commit(Path(path))


# ----------------------------------------------------------------------------------- written through
@contextmanager
def _named(path: PathLike) -> Iterator[None]:
    """An operating-system error while writing (no space left, an I/O error) as one message naming the output;
    a closed pipe (``BrokenPipeError``) and this module's own errors pass unchanged."""
    try:
        yield
    except (OutputError, BrokenPipeError):
        raise
    except OSError as exc:
        if exc.errno is None:
            raise
        err = OutputError(f"cannot write {os.fspath(path)}: {exc.strerror or exc}")
        err.errno = exc.errno  # callers that test the error number keep working
        raise err from exc


def _refuse_terminal(fh: Any, path: str, mode: str) -> None:
    if "b" in mode and _isatty(fh):
        where = "standard output" if path == "-" else path
        raise OutputError(f"cannot write binary output (an image or an archive) to {where}: it is a terminal. "
                          "Redirect it to a file (> out.png) or give a file name.")


def _isatty(fh: Any) -> bool:
    try:
        return bool(fh.isatty())
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def _through_stream(stream: IO[Any], mode: str, on_commit: Commit | None) -> Iterator[IO[Any]]:
    """The caller's stream (``-``): written to and flushed, never closed."""
    if "b" in mode:
        stream.flush()
        stream = getattr(stream, "buffer", stream)
    _refuse_terminal(stream, "-", mode)
    yield stream
    stream.flush()
    if on_commit is not None:
        on_commit(Path("-"))


@contextmanager
def _through_fd(path: str, fd: int, mode: str, encoding: str | None, newline: str | None,
                on_commit: Commit | None) -> Iterator[IO[Any]]:
    """``/dev/stdout`` and the like: a duplicate of the file descriptor, so that what the process already wrote
    there is kept and the descriptor stays open."""
    for s in (sys.stdout, sys.stderr):
        try:
            if s is not None and s.fileno() == fd:
                s.flush()
        except (AttributeError, ValueError, OSError):
            pass
    try:
        dup = os.dup(fd)
    except OSError:
        raise OutputError(f"cannot write {path}: file descriptor {fd} is not open.") from None
    with _named(path), open(dup, mode, encoding=None if "b" in mode else encoding, newline=newline) as fh:
        _refuse_terminal(fh, path, mode)
        yield fh
    if on_commit is not None:
        on_commit(Path(path))


@contextmanager
def _through_special(path: PathLike, mode: str, encoding: str | None, newline: str | None,
                     on_commit: Commit | None) -> Iterator[IO[Any]]:
    """A device, FIFO or socket: opened for writing (no create, no truncation, never renamed over or removed)."""
    s = os.fspath(path)
    if stat.S_ISSOCK(os.stat(s).st_mode):
        raise OutputError(f"cannot write {s}: it is a socket, not a file; give a file name, or '-' for "
                          "standard output.")
    with _named(s):
        fd = os.open(s, os.O_WRONLY)  # a FIFO: waits for its reader, as the shell's `>` does
        with open(fd, mode, encoding=None if "b" in mode else encoding, newline=newline) as fh:
            _refuse_terminal(fh, s, mode)
            yield fh
    if on_commit is not None:
        on_commit(Path(s))


# --------------------------------------------------------------------------------------------- public
@contextmanager
def open_output(path: PathLike, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None,
                on_commit: Commit | None = None, stdout: IO[Any] | None = None) -> Iterator[IO[Any]]:
    """``open(path, mode)`` for an output: atomic for a regular file, written through otherwise (module docstring).

    Parameters
    ----------
    path
        The output. A regular file or a new path is replaced atomically (a temporary file beside it, renamed at
        the end); a device, FIFO or ``/dev/stdout`` is written through.
    mode
        ``"w"`` (text, ``encoding``, ``newline`` as :func:`open`) or ``"wb"`` (binary).
    on_commit
        Called with ``path`` once the output is complete (after the rename, or after the last write through).
    stdout
        Where ``-`` writes (e.g. ``sys.stdout``); without it, ``-`` is an ordinary file name.

    Raises
    ------
    OutputError
        The directory does not exist or cannot be written, ``path`` is a directory or a socket, or a binary
        output would go to a terminal.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"`mode` must be 'w' or 'wb'; got {mode!r}.")
    s = os.fspath(path)
    kind = target_kind(s, dash=stdout is not None)
    if kind == "stdout":
        assert stdout is not None
        with _through_stream(stdout, mode, on_commit) as fh:
            yield fh
    elif kind == "fd":
        with _through_fd(s, _fd_of(s), mode, encoding, newline, on_commit) as fh:  # type: ignore[arg-type]
            yield fh
    elif kind == "special":
        with _through_special(s, mode, encoding, newline, on_commit) as fh:
            yield fh
    else:
        with _atomic_path(path, on_commit) as tmp:
            with open(tmp, mode, encoding=None if mode == "wb" else encoding, newline=newline) as fh:
                yield fh


@contextmanager
def output_path(path: PathLike, *, on_commit: Commit | None = None,
                stdout: IO[Any] | None = None) -> Iterator[Path]:
    """Yield a path to write the output to (for writers that need a path, e.g. matplotlib's ``savefig``); when the
    block ends without an exception, its content becomes ``path``.

    For a regular file or a new path, the yielded path is a temporary file beside ``path`` that keeps its suffix
    (``.report.png.k2j3.tmp.png``, so writers that choose a format by suffix write the right one) and is renamed
    over ``path``. For a device, FIFO, ``/dev/stdout`` or ``-`` (with ``stdout``), it is a temporary file in a
    private directory whose bytes are written through to ``path`` at the end (:func:`open_output`). On any
    exception, ``KeyboardInterrupt`` included, the temporary file is removed and ``path`` is untouched.
    """
    s = os.fspath(path)
    kind = target_kind(s, dash=stdout is not None)
    if kind in ("regular", "new", "directory"):
        with _atomic_path(path, on_commit) as tmp:
            yield tmp
        return
    scratch = Path(tempfile.mkdtemp(prefix=".gtheory-out."))
    try:
        tmp = scratch / ("out" + "".join(Path(s).suffixes[-1:]))
        yield tmp
        data = tmp.read_bytes() if tmp.exists() else b""
        with open_output(path, "wb", on_commit=on_commit, stdout=stdout) as fh:
            fh.write(data)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def write_text(path: PathLike, text: str, *, encoding: str = "utf-8", on_commit: Commit | None = None,
               stdout: IO[Any] | None = None) -> None:
    """Write ``text`` to ``path`` (:func:`open_output`: atomic for a regular file, written through otherwise)."""
    with open_output(path, "w", encoding=encoding, on_commit=on_commit, stdout=stdout) as fh:
        fh.write(text)


def write_bytes(path: PathLike, data: bytes, *, on_commit: Commit | None = None,
                stdout: IO[Any] | None = None) -> None:
    """Write ``data`` to ``path`` (:func:`open_output` in binary mode)."""
    with open_output(path, "wb", on_commit=on_commit, stdout=stdout) as fh:
        fh.write(data)


@contextmanager
def output_directory(path: PathLike, *, on_commit: Commit | None = None) -> Iterator[Path]:
    """Yield a new temporary directory beside ``path``; at the end it becomes ``path``, replacing a previous one.

    Files are written into the yielded directory. When the block ends without an exception, an existing
    ``path`` is moved aside, the new directory renamed to ``path`` and the old one removed: the target holds
    either the old files or the new ones, never a mix. On any exception (``KeyboardInterrupt`` included) the
    temporary directory is removed and ``path`` is untouched. Missing parent directories are created. A ``path``
    that is a symbolic link to a directory is written through (the link stays, the directory it names is
    replaced). An existing ``path`` that is not a directory (a file, a device, a FIFO) is refused, untouched.
    """
    target = _resolved(path)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{target} exists and is not a directory.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise OutputError(f"cannot write the directory {os.fspath(path)}: a parent of it is a file.") from None
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        yield tmp
        _publish_mode(tmp, target, directory=True)
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".old"))
            os.rmdir(old)  # a free name beside the target
            os.replace(target, old)
            try:
                os.replace(tmp, target)
            except BaseException:
                os.replace(old, target)  # put the old one back
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if on_commit is not None:
        on_commit(Path(path))


# ------------------------------------------------------------------------------------------------ CSV
#: the first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection")
CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _formula(text: str) -> bool:
    """Whether a spreadsheet would run ``text`` as a formula: it starts with a trigger and is not a plain number."""
    return text.startswith(CSV_TRIGGERS) and not _NUMBER.fullmatch(text)


def _safe_cell(v: Any) -> Any:
    # one more leading quote whenever what follows the leading quotes is formula text: "=x" → "'=x", and "'=x"
    # (a name that really begins with a quote) → "''=x", so csv_unsafe can always remove exactly one (injective)
    if isinstance(v, str) and _formula(v.lstrip("'")):
        return "'" + v
    return v


def csv_safe(obj: Any) -> Any:
    """``obj`` with every text cell that a spreadsheet would run as a formula neutralised (OWASP, "CSV
    Injection"): a string starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
    ``'``, which spreadsheets show as text and do not evaluate.

    ``obj`` is a string (returned neutralised), or a pandas DataFrame / Series (a copy is returned, with its
    text cells, its index and column labels and their names neutralised). Numbers are never changed: a float
    score of -0.5 stays a number, and a text cell that is a plain decimal number (``"-5"``, ``"+1.5e3"``, which
    no spreadsheet treats as a formula) is kept as it is. Other objects are returned unchanged.

    Source: OWASP Foundation, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection).

    >>> csv_safe("=HYPERLINK(\\"http://x\\")"), csv_safe("@SUM(A1)"), csv_safe("-0.5"), csv_safe("run1")
    ('\\'=HYPERLINK("http://x")', "'@SUM(A1)", '-0.5', 'run1')
    """
    if isinstance(obj, str):
        return _safe_cell(obj)
    if hasattr(obj, "to_frame") and hasattr(obj, "map") and not hasattr(obj, "columns"):  # a Series
        out = obj.map(_safe_cell) if _text_dtype(obj.dtype) else obj.copy()
        out = out.rename(index=_safe_cell) if _textual(obj.index) else out
        out.name = _safe_cell(obj.name)
        out.index = out.index.set_names([_safe_cell(n) for n in out.index.names])
        return out
    if hasattr(obj, "columns") and hasattr(obj, "index"):  # a DataFrame
        out = obj.copy()
        for i, c in enumerate(out.columns):
            col = out.iloc[:, i]
            if _text_dtype(col.dtype):
                out.isetitem(i, col.map(_safe_cell))
        if _textual(out.index):
            out = out.rename(index=_safe_cell)
        if _textual(out.columns):
            out = out.rename(columns=_safe_cell)
        out.index = out.index.set_names([_safe_cell(n) for n in out.index.names])
        out.columns = out.columns.set_names([_safe_cell(n) for n in out.columns.names])
        return out
    return obj


def csv_unsafe(cell: str) -> str:
    """``cell`` as it was before :func:`csv_safe`: the writer adds one leading ``'`` to a cell whose text after its
    leading quotes would run as a formula (``"=run"`` → ``"'=run"``, and a name that really begins with a quote,
    ``"'=x"`` → ``"''=x"``), so one leading ``'`` is removed from exactly those cells (``"'=run"`` → ``"=run"``,
    ``"''=x"`` → ``"'=x"``, ``"'-x"`` → ``"-x"``); every other cell is returned as it is (``"'-5"``, ``"'quoted"``,
    ``"run1"``). Hence ``csv_unsafe(csv_safe(s)) == s`` for every string ``s``.

    The package's CSV readers (:func:`gtheory.read_scores`, hence every score file the command line reads) apply it
    to their labels, so a file the package wrote reads back with the names it was written with. (A hand-made file
    whose cell is ``'=x`` reads as ``=x``: a leading ``'`` before formula text is the spreadsheet's text marker.)

    >>> csv_unsafe("'=HYPERLINK(1)"), csv_unsafe("'@sys"), csv_unsafe("'-5"), csv_unsafe("'quoted"), csv_unsafe("''=x")
    ('=HYPERLINK(1)', '@sys', "'-5", "'quoted", "'=x")
    """
    if cell.startswith("'") and _formula(cell.lstrip("'")):
        return cell[1:]
    return cell


def _text_dtype(dtype: Any) -> bool:
    """Whether a column of ``dtype`` may hold text: object, pandas' string dtypes, or categories (of any kind)."""
    from pandas.api.types import is_object_dtype, is_string_dtype  # pandas is loaded: the caller passed a frame

    return bool(is_object_dtype(dtype) or is_string_dtype(dtype) or str(dtype) == "category")


def _textual(index: Any) -> bool:
    """Whether an index may hold text labels (object or string dtype, or a MultiIndex)."""
    return hasattr(index, "levels") or _text_dtype(index.dtype)


def write_csv(frame: Any, path: PathLike | IO[str], *, raw: bool = False, on_commit: Commit | None = None,
              stdout: IO[Any] | None = None, **to_csv: Any) -> None:
    """``frame.to_csv`` to ``path`` through :func:`open_output` (atomic for a regular file, written through for a
    device, FIFO or ``/dev/stdout``; ``-`` with ``stdout``), or to an open text stream.

    Text cells are neutralised against formula injection (:func:`csv_safe`) unless ``raw=True``, which writes
    them as they are (for a program that reads the CSV, not a spreadsheet). ``to_csv`` holds the keywords of
    :meth:`pandas.DataFrame.to_csv` (``index``, ``float_format``, ...).
    """
    import warnings

    data = frame if raw else csv_safe(frame)
    with warnings.catch_warnings():
        # pandas 2.0's writer casts a float column holding inf or NaN to test for integers and warns "invalid value
        # encountered in cast" from inside pandas: nothing of the caller's, and the text written is right
        warnings.filterwarnings("ignore", "invalid value encountered in cast", RuntimeWarning)
        if hasattr(path, "write"):
            data.to_csv(path, **to_csv)
            return
        with open_output(path, "w", newline="", on_commit=on_commit, stdout=stdout) as fh:  # type: ignore[arg-type]
            data.to_csv(fh, **to_csv)
