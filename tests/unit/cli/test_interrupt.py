"""Ctrl-C while a command imports a compiled module ends it as an interrupt (exit code 130).

A compiled module's init turns the KeyboardInterrupt into another error (pybind11's scipy
modules: ``ImportError: initialization failed``, the interrupt its cause): the command line
still says "interrupted", not a traceback with exit code 1.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

import deepcrawl.cli as cli


def _raising(exc: BaseException) -> object:
    def app(**_kwargs: object) -> NoReturn:
        raise exc

    return app


def _exit(code: int) -> NoReturn:
    raise SystemExit(code)


def _wrapped_interrupt() -> ImportError:
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise ImportError("initialization failed") from interrupt
    except ImportError as exc:
        return exc


def test_an_import_broken_by_ctrl_c_ends_as_an_interrupt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "app", _raising(_wrapped_interrupt()))
    monkeypatch.setattr(cli, "exit_at_once", _exit)
    with pytest.raises(SystemExit) as ended:
        cli.main(["crawl"])
    assert ended.value.code == 130
    assert "interrupted" in capsys.readouterr().err


def test_any_other_error_is_raised_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "app", _raising(ImportError("no module named x")))
    monkeypatch.setattr(cli, "exit_at_once", _exit)
    with pytest.raises(ImportError, match="no module named x"):
        cli.main(["crawl"])
