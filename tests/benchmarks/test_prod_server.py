"""The benchmarks' server functions (benchmarks/prod_server.py): what they read from /proc about a
process tree, and a terminal's connection sending a request again when the server had closed the
idle keep-alive connection it was on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import prod_server


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait()


def test_children_rss_and_cpu_of_a_process_tree(child: subprocess.Popen[bytes]) -> None:
    assert child.pid in prod_server.children(os.getpid())
    assert prod_server.children(child.pid) == []
    assert prod_server.rss_bytes(os.getpid()) > 10 * 1024**2  # this interpreter, with pytest loaded
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:  # burn a little CPU
        pass
    assert prod_server.cpu_seconds(os.getpid()) >= 0.3


def test_a_gone_process_counts_nothing(child: subprocess.Popen[bytes]) -> None:
    pid = child.pid
    child.kill()
    child.wait()
    assert prod_server.rss_bytes(pid) == 0
    assert prod_server.cpu_seconds(pid) == 0.0
    assert pid not in prod_server.children(os.getpid())


def test_reaped_children_count_in_the_parent_cpu() -> None:
    """A replaced gunicorn worker's CPU stays in the master's (cutime)."""
    before = prod_server.cpu_seconds(os.getpid(), reaped_children=True)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time() + 0.5\nwhile time.process_time() < t: pass",
        ],
        check=True,
    )
    after = prod_server.cpu_seconds(os.getpid(), reaped_children=True)
    assert after - before >= 0.4


def keep_alive_server(answers: int) -> tuple[int, list[int]]:
    """A server answering each connection's first request with keep-alive, then closing it without
    a word (what a server does with an idle keep-alive connection); ``answers`` connections."""
    listener = socket.create_server(("127.0.0.1", 0))
    connections: list[int] = []

    def run() -> None:
        with listener:
            for n in range(answers):
                conn, _ = listener.accept()
                with conn:
                    connections.append(n)
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
                    time.sleep(0.1)
                    conn.shutdown(socket.SHUT_RDWR)

    threading.Thread(target=run, daemon=True).start()
    return listener.getsockname()[1], connections


def test_a_request_meeting_a_closed_keep_alive_connection_is_sent_again() -> None:
    port, connections = keep_alive_server(2)
    conn = prod_server.Connection("127.0.0.1", port, timeout=5)
    assert conn.exchange("GET", "/", None, {}).read() == b"ok"
    time.sleep(0.3)  # the server has closed the connection meanwhile
    assert conn.exchange("POST", "/", "body", {"Content-Type": "text/plain"}).read() == b"ok"
    assert conn.resent == 1
    assert connections == [0, 1]
    conn.close()


def test_a_new_connection_that_fails_is_not_sent_again() -> None:
    port = prod_server.free_port()  # nothing listens there
    conn = prod_server.Connection("127.0.0.1", port, timeout=5)
    with pytest.raises(ConnectionRefusedError):
        conn.exchange("GET", "/", None, {})
    assert conn.resent == 0
