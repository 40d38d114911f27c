"""A phone's task app for test/http/caldav-python.test.ts, made of Python's caldav library (PyPI).

One command a run: caldav_client.py COMMAND URL USER PASSWORD [JSON ARGUMENTS]; the answer is
one JSON document on stdout. The venv `make caldav-venv` makes holds the pinned library.
"""

import json
import sys
from datetime import date, datetime, timedelta, timezone

import caldav
from caldav.lib import error
from icalendar import vRecur


def calendar_named(principal, name):
    for calendar in principal.calendars():
        if calendar.get_display_name() == name:
            return calendar
    raise SystemExit(f"no calendar named {name!r}")


def when(text):
    if len(text) == 10:
        return date.fromisoformat(text)
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def edit(todo, changes):
    """Changes the task's VTODO as a phone's app would, then saves it (with If-Match)."""
    component = todo.icalendar_component
    for name in ("summary", "description", "status"):
        if name in changes:
            component.pop(name.upper(), None)
            if changes[name] is not None:
                component.add(name, changes[name])
    if "due" in changes:
        component.pop("DUE", None)
        if changes["due"] is not None:
            component.add("due", when(changes["due"]))
    if "categories" in changes:
        component.pop("CATEGORIES", None)
        if changes["categories"]:
            component.add("categories", changes["categories"])
    if "rrule" in changes:
        component.pop("RRULE", None)
        if changes["rrule"]:
            component.add("rrule", vRecur.from_ical(changes["rrule"]))
    if "related_to" in changes:
        component.pop("RELATED-TO", None)
        if changes["related_to"]:
            component.add("related-to", changes["related_to"])
    if "alarm_before_minutes" in changes:
        alarms = [c for c in component.subcomponents if c.name == "VALARM"]
        if changes["alarm_before_minutes"] is None:
            component.subcomponents = [c for c in component.subcomponents if c not in alarms[:1]]
        else:
            alarms[0].pop("TRIGGER", None)
            alarms[0].add("trigger", timedelta(minutes=-changes["alarm_before_minutes"]), parameters={"RELATED": "END"})
    # The library sends If-Match with the ETag it read: a task changed meanwhile answers 412.
    todo.save()


def run(command, client, args):
    principal = client.principal()
    if command == "calendars":
        return [
            {"name": c.get_display_name(), "url": str(c.url), "components": c.get_supported_components()}
            for c in principal.calendars()
        ]
    calendar = calendar_named(principal, args["calendar"])
    if command == "add":
        todo = calendar.add_todo(args["ics"])
        return {"url": str(todo.url)}
    if command == "sync":
        found = calendar.objects_by_sync_token(sync_token=args.get("token"), load_objects=True, disable_fallback=True)
        return {
            "token": found.sync_token,
            "changed": [o.icalendar_component.get("uid") for o in found.objects if str(o.url) not in {str(u) for u in found.deleted_urls}],
            "deleted": sorted(str(u).rsplit("/", 1)[-1] for u in found.deleted_urls),
        }
    todo = calendar.todo_by_uid(args["uid"])
    if command == "get":
        return {"url": str(todo.url), "ics": todo.data}
    if command == "edit":
        if args.get("wait"):
            # Read now, write after the test says so (it changes the task in between).
            print(json.dumps({"read": True}), flush=True)
            sys.stdin.readline()
        edit(todo, args["set"])
        return {"saved": True}
    if command == "complete":
        todo.complete()
        return {"saved": True}
    if command == "delete":
        todo.delete()
        return {"deleted": True}
    raise SystemExit(f"unknown command {command!r}")


def main():
    command, url, user, password = sys.argv[1:5]
    args = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    with caldav.DAVClient(url=url, username=user, password=password) as client:
        try:
            answer = run(command, client, args)
        except error.DAVError as failure:
            answer = {"error": type(failure).__name__, "reason": str(failure)}
    print(json.dumps(answer, default=str))


if __name__ == "__main__":
    main()
