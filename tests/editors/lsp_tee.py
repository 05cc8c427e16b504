"""Run a language server between an editor and the real server, recording every LSP message both ways.

    python lsp_tee.py LOG.jsonl -- SERVER_CMD...

Each line of LOG.jsonl is {"dir": "to_server" | "to_editor", "msg": {...}, "t": unix time}, and a last {"dir":
"exit", "code": N}
once the server has exited. Editor tests read it to learn what the server answered (so they can check that
what
landed in the file is a laya candidate) without depending on what the model says.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import BinaryIO


class FrameLog:
    """Splits one direction's byte stream into LSP messages and appends them to the log."""

    def __init__(self, direction: str, log: BinaryIO, lock: threading.Lock) -> None:
        self.direction = direction
        self.log = log
        self.lock = lock
        self.buf = b""

    def feed(self, data: bytes) -> None:
        self.buf += data
        while True:
            head_end = self.buf.find(b"\r\n\r\n")
            if head_end < 0:
                return
            length = None
            for line in self.buf[:head_end].split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length is None or len(self.buf) < head_end + 4 + length:
                return
            body = self.buf[head_end + 4 : head_end + 4 + length]
            self.buf = self.buf[head_end + 4 + length :]
            try:
                msg = json.loads(body)
            except ValueError:
                msg = {"unparsed": body.decode("utf-8", "replace")}
            write(self.log, self.lock, {"dir": self.direction, "msg": msg})


def write(log: BinaryIO, lock: threading.Lock, record: dict) -> None:
    record["t"] = round(time.time(), 3)
    with lock:
        log.write(json.dumps(record).encode() + b"\n")
        log.flush()


def pump(src: BinaryIO, dst: BinaryIO, frames: FrameLog) -> None:
    while True:
        data = src.read1(65536) if hasattr(src, "read1") else src.read(65536)
        if not data:
            break
        frames.feed(data)
        try:
            dst.write(data)
            dst.flush()
        except (BrokenPipeError, ValueError):
            break
    try:
        dst.close()
    except OSError:
        pass


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: lsp_tee.py LOG.jsonl -- SERVER_CMD...", file=sys.stderr)
        return 2
    log_path, cmd = argv[0], argv[2:]
    lock = threading.Lock()
    with open(log_path, "ab") as log:
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            write(log, lock, {"dir": "exit", "code": 127, "error": str(exc)})
            return 127
        assert proc.stdin is not None and proc.stdout is not None
        to_server = threading.Thread(
            target=pump, args=(sys.stdin.buffer, proc.stdin, FrameLog("to_server", log, lock)), daemon=True
        )
        to_server.start()
        pump(proc.stdout, sys.stdout.buffer, FrameLog("to_editor", log, lock))
        code = proc.wait()
        write(log, lock, {"dir": "exit", "code": code})
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
