#!/usr/bin/python3
"""Parse playlists with Totem's playlist parser (totem-pl-parser, the one
GNOME's players use), through GObject introspection: for each file named,
or each line read from standard input when the argument is "-", one JSON
line {"file", "result", "entries": [{"uri", "title"}]}.
Used by the Radio Browser API's format tests (rbapi_formats_test.go)."""
import json
import sys

import gi

gi.require_version("TotemPlParser", "1.0")
from gi.repository import Gio, TotemPlParser  # noqa: E402


def parse(path):
    parser = TotemPlParser.Parser()
    entries = []

    def on_entry(_parser, uri, metadata):
        entries.append({"uri": uri, "title": metadata.get("title")})

    parser.connect("entry-parsed", on_entry)
    result = parser.parse(Gio.File.new_for_path(path).get_uri(), False)
    return {"file": path, "result": result.value_nick, "entries": entries}


if sys.argv[1:] == ["-"]:
    for line in sys.stdin:
        print(json.dumps(parse(line.rstrip("\n"))), flush=True)
else:
    for name in sys.argv[1:]:
        print(json.dumps(parse(name)))
