"""``optsched data fetch`` without a network: one line naming the host that could not be reached
and why (DNS failure, connection refused, time-out), the offline options ``--from``/``--dir``,
exit 1, no traceback and none of the HTTP library's own text."""

from __future__ import annotations

import socket

import pytest
import requests
import urllib3
import urllib3.exceptions as u3

from optsched import cli
from optsched.core import datasets
from optsched.core.datasets import DataFetchError, fetch, network_reason

RAW = "raw.githubusercontent.com"


def _as_requests(reason: Exception, host: str = RAW) -> requests.exceptions.RequestException:
    """What requests raises for ``reason``: urllib3's ``MaxRetryError`` wrapped in a
    ``ConnectionError`` (``ConnectTimeout`` for a time-out), as pooch lets it through."""
    pool = urllib3.HTTPSConnectionPool(host, 443)
    retry = u3.MaxRetryError(pool, "/x/file.txt", reason)
    if isinstance(reason, u3.ConnectTimeoutError):
        return requests.exceptions.ConnectTimeout(retry)
    return requests.exceptions.ConnectionError(retry)


def _dns():
    conn = urllib3.connection.HTTPSConnection(RAW, 443)
    return u3.NameResolutionError(RAW, conn, socket.gaierror(-2, "Name or service not known"))


def _refused():
    conn = urllib3.connection.HTTPSConnection(RAW, 443)
    err = u3.NewConnectionError(conn, "Failed to establish a new connection: [Errno 111] Connection refused")
    err.__context__ = ConnectionRefusedError(111, "Connection refused")
    return err


def _timeout():
    conn = urllib3.connection.HTTPSConnection(RAW, 443)
    return u3.ConnectTimeoutError(conn, f"Connection to {RAW} timed out. (connect timeout=30)")


@pytest.mark.parametrize("make, words", [
    (_dns, "DNS lookup failed"), (_refused, "connection refused"), (_timeout, "timed out")])
@pytest.mark.parametrize("wrapped", [True, False], ids=["requests", "urllib3"])
def test_each_network_failure_is_named(make, words, wrapped):
    exc = _as_requests(make()) if wrapped else make()
    assert words in network_reason(exc)


@pytest.mark.parametrize("make, words", [
    (_dns, "DNS lookup failed"), (_refused, "connection refused"), (_timeout, "timed out")])
def test_cli_offline_is_one_plain_line(make, words, monkeypatch, tmp_path, capsys):
    import pooch

    def offline(url, **kw):
        raise _as_requests(make())

    monkeypatch.setattr(pooch, "retrieve", offline)
    assert cli.main(["data", "fetch", "--all", "--dir", str(tmp_path / "d")]) == 1
    out = capsys.readouterr()
    err = out.err
    assert err.count("\n") == 1 and err.startswith("optsched: error: cannot reach raw.githubusercontent.com (")
    assert words in err and "--from URL" in err and "--dir DIR" in err
    # none of the library's own text: no pool, no retries, no exception class names
    for raw in ("HTTPSConnectionPool", "Max retries", "NameResolutionError", "NewConnectionError", "Traceback"):
        assert raw not in err
    assert not list((tmp_path / "d").rglob("*.*")), "nothing is written when nothing was downloaded"


def test_a_port_nobody_listens_on_is_connection_refused(tmp_path, monkeypatch):
    """A real connection (127.0.0.1, a port just released) rather than a monkeypatched one."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    toy = datasets.DataSet("toy", "toyset", "example/none", "0" * 40, "a test data set", "none",
                           (("a.txt", "src/a.txt", "0" * 64),))
    monkeypatch.setattr(datasets, "DATASETS", {"toy": toy})
    with pytest.raises(DataFetchError) as info:
        fetch(["toy"], tmp_path, mirror=f"http://127.0.0.1:{port}", log=None)
    msg = str(info.value)
    assert msg.startswith("cannot reach 127.0.0.1 (connection refused)") and "--from URL" in msg
    assert "\n" not in msg and "HTTPConnectionPool" not in msg


def test_other_errors_are_not_disguised_as_network_failures(monkeypatch, tmp_path):
    import pooch

    def broken(url, **kw):
        raise KeyError("a bug, not the network")

    monkeypatch.setattr(pooch, "retrieve", broken)
    with pytest.raises(KeyError):
        fetch([sorted(datasets.DATASETS)[0]], tmp_path, log=None)
