"""A sentence becomes a calendar event: laya's `/v1/structured` → iCalendar → a CalDAV server, read back.

    laya-lsp http --port 8765 --model <an instruction-tuned MLX model> &
    python examples/caldav_event.py --caldav http://127.0.0.1:5232/ --user me --password secret \\
        "明天下午三点跟王总在会议室讨论预算"

The schema asks for what a model can say without doing date arithmetic (a day relative to today, an hour and a
minute, a topic, a place, who, what kind of event); this script resolves the day against `--now`. Every value
the model can produce is a valid event by construction (enums, bounded integers), so the plumbing is exact for
any model; how good the content is depends on the model: the embedded code model fills the fields with noise,
an instruction-tuned MLX model (e.g. a Qwen2.5-Instruct build from mlx-community) fills them in from the sentence.

Needs only the standard library and `caldav` (pip install caldav). Prints the event as read back, as JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
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
    return "".join(ch for ch in s if (ch >= " " and ch != "\x7f" and not "\ud800" <= ch <= "\udfff") or ch in "\t\n")


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


def save_and_read_back(url: str, user: str, password: str, calendar: str, ics: str, uid: str) -> dict[str, Any]:
    """Create the event in `calendar` (made if missing) over CalDAV and read it back by UID."""
    import caldav

    with caldav.DAVClient(url=url, username=user, password=password) as client:
        principal = client.principal()
        try:
            cal = principal.calendar(name=calendar)
            cal.get_display_name()
        except Exception:  # noqa: BLE001 - not there yet (servers differ in how they say so)
            cal = principal.make_calendar(name=calendar)
        cal.save_event(ics)
        found = cal.event_by_uid(uid)
        vevent = found.icalendar_component
        return {
            "url": str(found.url),
            "uid": str(vevent["UID"]),
            "summary": str(vevent["SUMMARY"]),
            "start": vevent["DTSTART"].dt.isoformat(),
            "end": vevent["DTEND"].dt.isoformat(),
            "location": str(vevent.get("LOCATION", "")),
            "attendees": [str(a.params.get("CN", "")) for a in _as_list(vevent.get("ATTENDEE"))],
            "categories": [str(c) for c in vevent["CATEGORIES"].cats] if "CATEGORIES" in vevent else [],
        }


def _as_list(x: Any) -> list[Any]:
    return [] if x is None else x if isinstance(x, list) else [x]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sentence", nargs="?", default="明天下午三点跟王总在会议室讨论预算")
    p.add_argument("--laya", default="http://127.0.0.1:8765", help="laya-lsp http URL")
    p.add_argument("--token", help="bearer token of the laya server, if it has one")
    p.add_argument("--caldav", required=True, help="CalDAV server URL, e.g. http://127.0.0.1:5232/")
    p.add_argument("--user", default="laya")
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
