"""``deepcrawl ARGS`` in a forked child of the test process instead of a new interpreter.

A new ``python -m deepcrawl`` spends about 3 s of CPU importing scikit-learn, SQLAlchemy and
Playwright before it does anything; the integration tests start well over a hundred of them,
on two cores. The test worker has imported all of that already, so :class:`ForkedCLI` forks it
and runs the command line's ``__main__`` in the child, with the child's own stdin, stdout,
stderr, working directory and environment, exactly where a new interpreter would start. It is
a :class:`subprocess.Popen`: the child is a real process with its own pid, signals, exit code and
pipes, and every test that drives a ``Popen`` (``communicate``, ``send_signal``, reading stderr
line by line) drives this one the same way.

What the child must not inherit from the test worker, it drops before the command runs: the
worker's signal handlers and wake-up fd, its running event loop, pytest's capture streams, log
handlers, warning filters (the suite turns warnings into errors; a user's interpreter does not),
exception hooks and exit handlers. It ends with ``os._exit`` after the interpreter's own
shutdown steps (non-daemon threads joined, exit handlers run, streams flushed), so nothing of
the worker's teardown runs twice.

``DEEPCRAWL_TEST_EXEC=1`` in the environment of ``pytest`` starts a new interpreter instead,
for a test suspected of depending on the fork.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import faulthandler
import gc
import io
import logging
import os
import runpy
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from typing import Any

#: The command line of the CLI in a new interpreter (what a user runs).
DEEPCRAWL = (sys.executable, "-m", "deepcrawl")
#: Start a new interpreter for every command (debugging a test against the real thing).
EXEC = os.environ.get("DEEPCRAWL_TEST_EXEC", "") not in ("", "0")
#: Signals whose disposition the test worker may have changed (pytest-timeout, xdist, asyncio).
_RESET_SIGNALS = (
    signal.SIGTERM, signal.SIGHUP, signal.SIGALRM, signal.SIGUSR1, signal.SIGUSR2,
    signal.SIGCHLD,
)  # fmt: skip


def preload() -> None:
    """Import every module a command may import, and load what a crawl loads once per process
    (the stemmer, the fitted form critic), once per test worker, so that no forked child does:
    each child would otherwise spend about a second of CPU on them."""
    import importlib
    import pkgutil

    import deepcrawl
    from deepcrawl.forms import load_critic
    from deepcrawl.forms.features import stem_tokens

    for module in pkgutil.walk_packages(deepcrawl.__path__, f"{deepcrawl.__name__}."):
        if not module.name.endswith(".__main__"):  # the command line itself: it would run
            importlib.import_module(module.name)
    stem_tokens("searching")  # imports nltk's stemmer
    load_critic()  # from the user's cache, where a crawl with default settings finds it


class ForkedCLI(subprocess.Popen[Any]):
    """A :class:`subprocess.Popen` of ``[*DEEPCRAWL, *args]`` whose child is a fork of this process.

    Takes ``Popen``'s arguments; ``args`` must begin with :data:`DEEPCRAWL`. ``env`` is the
    child's whole environment (``None``: this process's), ``cwd`` its working directory. A
    stdin left ``None`` is ``/dev/null`` (a new interpreter would inherit the test worker's).
    """

    def _execute_child(
        self,
        args: Any,
        executable: Any,
        preexec_fn: Any,
        close_fds: Any,
        pass_fds: Any,
        cwd: Any,
        env: Any,
        startupinfo: Any,
        creationflags: Any,
        shell: Any,
        p2cread: int,
        p2cwrite: int,
        c2pread: int,
        c2pwrite: int,
        errread: int,
        errwrite: int,
        *_rest: Any,
    ) -> None:
        argv = [os.fspath(arg) for arg in args]
        if tuple(argv[: len(DEEPCRAWL)]) != DEEPCRAWL:
            raise ValueError(f"ForkedCLI runs deepcrawl only, not {argv!r}")
        if preexec_fn is not None or pass_fds or shell:
            raise ValueError("ForkedCLI takes no preexec_fn, pass_fds or shell")
        env = dict(os.environ if env is None else env)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the test
            code = 1
            try:
                _become_a_new_process(cwd, env, (p2cread, c2pwrite, errwrite),
                                      (p2cwrite, c2pread, errread))  # fmt: skip
                code = _run_main(argv[len(DEEPCRAWL) :])
            finally:
                os._exit(code)
        self.pid = pid
        self._child_created = True
        # the child's ends, those Popen opened (not a caller's file), as after an exec
        self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)


def spawn_deepcrawl(args: list[str], *, fork: bool = True, **popen: Any) -> subprocess.Popen[Any]:
    """``deepcrawl ARGS`` as a process: forked (unless :data:`EXEC`) or, ``fork=False``, a new
    interpreter. ``popen`` as for :class:`subprocess.Popen`."""
    if EXEC or not fork:
        return subprocess.Popen([*DEEPCRAWL, *args], **popen)
    return ForkedCLI([*DEEPCRAWL, *args], **popen)


def run_deepcrawl_process(
    args: list[str],
    *,
    input: str | bytes | None = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **popen: Any,
) -> subprocess.CompletedProcess[Any]:
    """``deepcrawl ARGS`` to its end, as :func:`subprocess.run` runs ``[*DEEPCRAWL, *args]``."""
    if capture_output:
        popen.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    with spawn_deepcrawl(args, **popen) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    if check:
        result.check_returncode()
    return result


def _become_a_new_process(
    cwd: str | os.PathLike[str] | None,
    env: dict[str, str],
    child_fds: tuple[int, int, int],
    parent_fds: tuple[int, int, int],
) -> None:
    """Turn the forked test worker into what a new interpreter would be at ``__main__``."""
    gc.freeze()  # the worker's objects: never scanned, so never copied page by page
    stdin, stdout, stderr = child_fds
    if stdin == -1:
        stdin = os.open(os.devnull, os.O_RDONLY)
    for fd in parent_fds:
        if fd != -1:
            os.close(fd)
    for target, fd in enumerate((stdin, stdout, stderr)):
        if fd not in (-1, target):
            os.dup2(fd, target)
    for fd in {stdin, stdout, stderr} - {-1, 0, 1, 2}:
        os.close(fd)
    if cwd is not None:
        os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    signal.set_wakeup_fd(-1)
    for signum in _RESET_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    for signum in (signal.SIGPIPE, signal.SIGXFSZ):  # as the interpreter sets them at start
        signal.signal(signum, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop_policy(None)
    faulthandler.disable()
    unbuffered = env.get("PYTHONUNBUFFERED", "") != ""
    sys.stdin = sys.__stdin__ = _std_stream(0, "<stdin>", unbuffered=False)
    sys.stdout = sys.__stdout__ = _std_stream(1, "<stdout>", unbuffered=unbuffered)
    sys.stderr = sys.__stderr__ = _std_stream(2, "<stderr>", unbuffered=unbuffered)
    sys.excepthook = sys.__excepthook__
    sys.unraisablehook = sys.__unraisablehook__
    threading.excepthook = threading.__excepthook__
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(logging.WARNING)
    logging.disable(logging.NOTSET)
    warnings.resetwarnings()
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
    atexit._clear()


def _std_stream(fd: int, name: str, *, unbuffered: bool) -> io.TextIOWrapper:
    """``sys.stdin``, ``stdout`` or ``stderr`` on ``fd`` as the interpreter makes them at start."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    raw.name = name  # what a program prints when it names the stream
    if fd == 0:
        return io.TextIOWrapper(io.BufferedReader(raw))
    errors = "backslashreplace" if fd == 2 else None
    if unbuffered:
        return io.TextIOWrapper(raw, errors=errors, write_through=True)  # type: ignore[arg-type]
    tty = raw.isatty()
    return io.TextIOWrapper(io.BufferedWriter(raw), errors=errors, line_buffering=tty or fd == 2)


def _run_main(args: list[str]) -> int:
    """Run ``python -m deepcrawl ARGS`` to its end, as the interpreter would; its exit code."""
    sys.argv = ["deepcrawl", *args]  # ``run_module`` puts the module's path first, as ``-m`` does
    try:
        runpy.run_module("deepcrawl", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except KeyboardInterrupt:  # the interpreter ends by the signal itself
        _shut_down()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    _shut_down()
    return code


def _exit_code(code: object) -> int:
    """The exit code of ``sys.exit(code)``; a message is printed, as the interpreter does."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _shut_down() -> None:
    """The interpreter's shutdown steps a process relies on: threads, exit handlers, streams."""
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
