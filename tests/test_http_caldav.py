"""The design's automation end to end: a sentence → /v1/structured with an event schema → an event in a real
CalDAV server (Radicale, on loopback, temp storage, no auth) → read back, by the example and from Radicale's disk.

The tiny test model's fields are noise; what is checked is the plumbing: the value validates, the event holds
exactly those values, resolved against --now."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import icalendar
import jsonschema
import pytest
from httphelpers import HttpServer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "caldav_event.py"
SENTENCE = "明天下午三点跟王总在会议室讨论预算"
NOW = "2026-12-01T09:30:00"


def load_example():
    spec = importlib.util.spec_from_file_location("caldav_event", EXAMPLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def radicale(tmp_path_factory):
    store = tmp_path_factory.mktemp("radicale")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "radicale", "--config", "", "--server-hosts", f"127.0.0.1:{port}",
                             "--storage-filesystem-folder", str(store), "--auth-type", "none"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    t0 = time.monotonic()
    while True:
        try:
            httpx.get(url, timeout=1)
            break
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() - t0 < 30, "radicale did not start"
            time.sleep(0.1)
    yield url, store
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def laya():
    s = HttpServer()
    yield s
    s.close()


def test_sentence_becomes_a_caldav_event_with_exactly_the_structured_values(radicale, laya):
    url, store = radicale
    ex = load_example()
    p = subprocess.run([sys.executable, str(EXAMPLE), SENTENCE, "--laya", laya.url, "--caldav", url,
                        "--now", NOW], capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr + p.stdout
    out = json.loads(p.stdout)
    value, event = out["structured"], out["event"]
    assert out["sentence"] == SENTENCE
    jsonschema.validate(value, ex.EVENT_SCHEMA)
    start = dt.datetime.combine(dt.date(2026, 12, 1) + dt.timedelta(days=ex.DAYS[value["day"]]),
                                dt.time(value["hour"], value["minute"]))
    end = start + dt.timedelta(minutes=value["durationMinutes"])
    assert event["start"] == start.isoformat() and event["end"] == end.isoformat()
    assert event["summary"] == ex.printable(value["topic"])
    assert event["location"] == ex.printable(value["place"])
    assert len(event["attendees"]) == len(value["attendees"])
    assert event["categories"] == [value["action"].upper()]
    # Independently of the example's read-back: the event as Radicale stored it on disk.
    files = [f for f in store.rglob("*.ics") if ".Radicale.cache" not in f.parts]
    assert len(files) == 1
    vevent = next(c for c in icalendar.Calendar.from_ical(files[0].read_bytes()).walk("VEVENT"))
    assert str(vevent["UID"]) == event["uid"]
    assert vevent["DTSTART"].dt == start and vevent["DTEND"].dt == end
    assert str(vevent["SUMMARY"]) == event["summary"]
