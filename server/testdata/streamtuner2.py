#!/usr/bin/python3
"""Drives streamtuner2's Radio Browser plugin (the Debian package's
/usr/share/streamtuner2/channels/radiobrowser.py) without its window, as
its own command-line mode loads a channel: the plugin made with no parent
(no GTK widgets), its category lists and category views called as the
window calls them. The plugin asks http://all.api.radio-browser.info/json/;
http_proxy sends that to the node under test.

Argument: a JSON object {"categories": ["tags", ...], "views": [[cat_type,
category], ...], "search": "text"}. Prints one JSON array, one entry per
request the plugin sent, in order: {"view", "categories"} or {"view",
"rows": [{"title", "url", "genre", "playing", "listeners", "bitrate"}]}.
Used by rbapi_clients_test.go."""
import json
import sys

sys.path.insert(0, "/usr/share/streamtuner2")
plan = json.loads(sys.argv[1])
sys.argv = sys.argv[:1]  # streamtuner2's config reads the command line

from config import conf  # noqa: E402
import uikit  # noqa: E402,F401  (sets up the gtk module the channels import; no window is made)
from channels.radiobrowser import radiobrowser  # noqa: E402

conf.radiobrowser_srv = "all"
conf.radiobrowser_min = 1
conf.max_streams = plan.get("max_streams", 50)
plugin = radiobrowser(None)
# the status bar is the window's; without one, a stub, as the command-line
# mode's empty parent has (the plugin's own fallback fails on a NameError)
plugin.status = lambda *a, **kw: None
out = []


def rows(data):
    return [{k: r.get(k) for k in ("title", "url", "genre", "playing", "listeners", "bitrate")} for r in data]


for cat_type in plan["categories"]:
    conf.radiobrowser_cat = cat_type
    plugin.update_categories()
    out.append({"view": "categories " + cat_type, "categories": plugin.categories})
for cat_type, category in plan["views"]:
    conf.radiobrowser_cat = cat_type
    out.append({"view": cat_type + " " + category, "rows": rows(plugin.update_streams(category))})
if plan.get("search"):
    out.append({"view": "search " + plan["search"], "rows": rows(plugin.update_streams(None, search=plan["search"]))})
print(json.dumps(out))
