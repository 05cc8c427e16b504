"""A sentence becomes a calendar event: laya's `/v1/structured` → iCalendar → a CalDAV server, read back.

    laya-lsp http --port 8765 --model <an instruction-tuned MLX model> &
    python examples/caldav_event.py --caldav http://127.0.0.1:5232/ --user me --password secret \\
        "明天下午三点跟王总在会议室讨论预算"

The schema asks for what a model can say without doing date arithmetic (a day relative to today, an hour and a
minute, a topic, a place, who, what kind of event); this script resolves the day against `--now`. Every value
the model can produce is a valid event by construction (enums, bounded integers), so the plumbing is exact for
any model; how good the content is depends on the model: the embedded code model fills the fields with noise,
an instruction-tuned MLX model (e.g. a Qwen2.5-Instruct build from mlx-community) fills them in from the sentence.

Standard library only (CalDAV is MKCALENDAR + PUT + GET). Prints the event as read back, as JSON.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import re
import sys
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

DAYS = {"today": 0, "tomorrow": 1, "day_after_tomorrow": 2}
EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "day": {"enum": list(DAYS), "description": "the day, relative to today"},
        "hour": {"type": "integer", "minimum": 0, "maximum": 23, "description": "start hour, 24-hour clock"},
        "minute": {"type": "integer", "minimum": 0, "maximum": 59},
        "durationMinutes": {"type": "integer", "minimum": 15, "maximum": 480},
        "topic": {"type": "string", "minLength": 1, "maxLength": 60},
        "place": {"type": "string", "maxLength": 60},
        "attendees": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 30}, "maxItems": 6},
        "action": {"enum": ["meeting", "call", "reminder"]},
    },
    "required": ["day", "hour", "minute", "durationMinutes", "topic", "place", "attendees", "action"],
}
PROMPT = """Extract the calendar event from the sentence as JSON.
Fields: day (today, tomorrow or day_after_tomorrow), hour (0-23), minute, durationMinutes, topic, place,
attendees (names), action (meeting, call or reminder).

Sentence: 明天上午十点和李经理电话沟通合同
JSON: {"day":"tomorrow","hour":10,"minute":0,"durationMinutes":30,"topic":"沟通合同","place":"","attendees":["李经理"],"action":"call"}

Sentence: %s
JSON: """


def structured(laya: str, sentence: str, token: str | None = None, max_tokens: int = 160) -> dict[str, Any]:
    """POST /v1/structured; returns the response body (its `value` validates against EVENT_SCHEMA)."""
    body = json.dumps({"schema": EVENT_SCHEMA, "prompt": PROMPT % sentence, "maxTokens": max_tokens}).encode()
    req = urllib.request.Request(laya.rstrip("/") + "/v1/structured", data=body, method="POST",
                                 headers={"Content-Type": "application/json",
                                          **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.loads(resp.read())


def printable(s: str) -> str:
    """What iCalendar TEXT can carry: no control characters (but tab and newline), no lone surrogates."""
    return "".join(ch for ch in s if ch in "\t\n" or unicodedata.category(ch) not in ("Cc", "Cs"))


def ical_text(s: str) -> str:
    """iCalendar TEXT escaping (RFC 5545 3.3.11) of the printable part of `s`."""
    return printable(s).replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\r\n", "\\n").replace("\n", "\\n")


def to_vcalendar(event: dict[str, Any], now: dt.datetime, uid: str) -> tuple[str, dt.datetime, dt.datetime]:
    """The VCALENDAR text for the model's event (floating local time), with its start and end."""
    day = now.date() + dt.timedelta(days=DAYS[event["day"]])
    start = dt.datetime.combine(day, dt.time(event["hour"], event["minute"]))
    end = start + dt.timedelta(minutes=event["durationMinutes"])
    fmt = "%Y%m%dT%H%M%S"
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//laya-lsp//caldav_event example//EN", "BEGIN:VEVENT",
             f"UID:{uid}", f"DTSTAMP:{dt.datetime.now(dt.timezone.utc).strftime(fmt)}Z",
             f"DTSTART:{start.strftime(fmt)}", f"DTEND:{end.strftime(fmt)}",
             f"SUMMARY:{ical_text(event['topic'])}", f"CATEGORIES:{event['action'].upper()}"]
    if event["place"]:
        lines.append(f"LOCATION:{ical_text(event['place'])}")
    for name in event["attendees"]:
        cn = printable(name).replace('"', "").replace("\n", " ")
        lines.append(f'ATTENDEE;CN="{cn}":urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, name)}')
    lines += ["END:VEVENT", "END:VCALENDAR"]
    return "\r\n".join(lines) + "\r\n", start, end


def _dav(method: str, url: str, auth: str | None, body: bytes | None = None, **headers: str) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, method=method, headers={
        **({"Authorization": "Basic " + auth} if auth else {}), **{k.replace("_", "-"): v for k, v in headers.items()}})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def parse_vevent(ics: str) -> dict[str, list[tuple[dict[str, str], str]]]:
    """The VEVENT's properties: name -> [(params, value)], lines unfolded and TEXT unescaped (enough for
    reading back what `to_vcalendar` wrote)."""
    text = re.sub(r"\r?\n[ \t]", "", ics)
    props: dict[str, list[tuple[dict[str, str], str]]] = {}
    inside = False
    for line in text.splitlines():
        if line in ("BEGIN:VEVENT", "END:VEVENT"):
            inside = line == "BEGIN:VEVENT"
            continue
        m = re.match(r'^([A-Za-z0-9-]+)((?:;[^:;=]+=(?:"[^"]*"|[^:;"]*))*):(.*)$', line) if inside else None
        if m is None:
            continue
        params = {k: v.strip('"') for k, v in re.findall(r';([^=;:]+)=("[^"]*"|[^:;"]*)', m.group(2))}
        value = re.sub(r"\\([\\;,nN])", lambda x: "\n" if x.group(1) in "nN" else x.group(1), m.group(3))
        props.setdefault(m.group(1).upper(), []).append((params, value))
    return props


def save_and_read_back(url: str, user: str, password: str, calendar: str, ics: str, uid: str) -> dict[str, Any]:
    """Create the event over CalDAV (MKCALENDAR if needed, then PUT) and read it back with GET.

    Only the standard library: the calendar is `<url>/<user>/<calendar>/`, the event `<uid>.ics` in it."""
    auth = base64.b64encode(f"{user}:{password}".encode()).decode() if user else None
    cal_url = f"{url.rstrip('/')}/{urllib.parse.quote(user)}/{urllib.parse.quote(calendar)}/"
    code, body = _dav("PROPFIND", cal_url, auth, Depth="0")
    if code == 404:
        code, body = _dav("MKCALENDAR", cal_url, auth)
    if code not in (201, 207):
        raise RuntimeError(f"calendar {cal_url}: HTTP {code} {body[:200]!r}")
    event_url = cal_url + urllib.parse.quote(uid) + ".ics"
    code, body = _dav("PUT", event_url, auth, ics.encode(), Content_Type="text/calendar; charset=utf-8",
                      If_None_Match="*")
    if code not in (201, 204):
        raise RuntimeError(f"PUT {event_url}: HTTP {code} {body[:200]!r}")
    code, body = _dav("GET", event_url, auth)
    if code != 200:
        raise RuntimeError(f"GET {event_url}: HTTP {code} {body[:200]!r}")
    props = parse_vevent(body.decode("utf-8"))

    def one(name: str) -> str:
        return props.get(name, [({}, "")])[0][1]

    def when(value: str) -> str:
        return dt.datetime.strptime(value, "%Y%m%dT%H%M%S").isoformat()

    return {
        "url": event_url,
        "uid": one("UID"),
        "summary": one("SUMMARY"),
        "start": when(one("DTSTART")),
        "end": when(one("DTEND")),
        "location": one("LOCATION"),
        "attendees": [p.get("CN", "") for p, _ in props.get("ATTENDEE", [])],
        "categories": [c for c in one("CATEGORIES").split(",") if c],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sentence", nargs="?", default="明天下午三点跟王总在会议室讨论预算")
    p.add_argument("--laya", default="http://127.0.0.1:8765", help="laya-lsp http URL")
    p.add_argument("--token", help="bearer token of the laya server, if it has one")
    p.add_argument("--caldav", required=True, help="CalDAV server URL, e.g. http://127.0.0.1:5232/")
    p.add_argument("--user", default="laya", help="CalDAV user (HTTP basic auth); the calendar is /USER/CALENDAR/")
    p.add_argument("--password", default="laya")
    p.add_argument("--calendar", default="laya")
    p.add_argument("--now", help="ISO date-time that 'today' refers to (default: now)")
    args = p.parse_args(argv)
    now = dt.datetime.fromisoformat(args.now) if args.now else dt.datetime.now()
    answer = structured(args.laya, args.sentence, args.token)
    event = answer["value"]
    uid = f"{uuid.uuid4()}@laya"
    ics, start, end = to_vcalendar(event, now, uid)
    saved = save_and_read_back(args.caldav, args.user, args.password, args.calendar, ics, uid)
    print(json.dumps({"sentence": args.sentence, "structured": event, "confidence": answer["confidence"],
                      "truncated": answer["truncated"], "event": saved}, ensure_ascii=False, indent=2))
    ok = saved["uid"] == uid and saved["summary"] == printable(event["topic"]) and saved["start"] == start.isoformat() \
        and saved["end"] == end.isoformat()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
