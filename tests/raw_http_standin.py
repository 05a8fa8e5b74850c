"""A stand-in HTTP server on a raw loopback socket (not a model, not http.server): each test scripts the exact
bytes and their timing, to play a server that drips, lies about its length, or hangs up mid-answer."""

from __future__ import annotations

import socket
import threading
import time
from typing import Callable

__all__ = ["RawServer", "drip", "answer", "http_head"]


def http_head(status: str = "200 OK", content_type: str = "application/json", length: int | None = None) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
    if length is not None:
        head += f"Content-Length: {length}\r\n"
    return (head + "Connection: close\r\n\r\n").encode()


def answer(body: bytes, content_type: str = "application/json", status: str = "200 OK") -> Callable[[socket.socket], None]:
    """A whole answer sent at once."""
    return lambda conn: conn.sendall(http_head(status, content_type, len(body)) + body)


def drip(data: bytes, every: float = 0.1) -> Callable[[socket.socket], None]:
    """`data` (head included) one byte per `every` seconds: each read gets a byte well within any read timeout."""

    def send(conn: socket.socket) -> None:
        for i in range(len(data)):
            conn.sendall(data[i:i + 1])
            time.sleep(every)

    return send


class RawServer:
    """`with RawServer(script) as srv:` accepts connections on 127.0.0.1 (port 0), reads the request head and
    body (Content-Length), then runs `script(conn)`; `srv.url` is http://127.0.0.1:PORT, `srv.requests` the raw
    requests."""

    def __init__(self, script: Callable[[socket.socket], None]):
        self.script = script
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.requests: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "RawServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.sock.close()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v)
            while len(body) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                body += chunk
            self.requests.append(head + b"\r\n\r\n" + body)
            if not self._stop.is_set():
                self.script(conn)
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass
