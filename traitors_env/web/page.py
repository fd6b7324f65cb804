"""The pages: the viewer's (``traitors-view``, served and exported alike) and the table's (``traitors-play --web``),
each one HTML file with scripts and a style sheet from ``static/``.

The page is plain HTML, CSS and JavaScript: no build step, nothing fetched from the network. Served, it asks the
server for each step (``/api/meta``, ``/api/step``); exported, it reads every viewpoint's steps from a JSON block in
the page itself (``<script type="application/json" id="viewer-data">``), so it opens from ``file://``.
"""

from __future__ import annotations

import html
import json
from importlib import resources

__all__ = ["ASSETS", "PLAY_ASSETS", "asset_text", "page_html", "play_html"]

#: The viewer page's files besides ``index.html`` (``table.js`` draws the table and the belief strip for both pages).
ASSETS = ("table.js", "viewer.js", "viewer.css")
#: The table page's files.
PLAY_ASSETS = ("table.js", "play.js", "viewer.css")


def asset_text(name: str) -> str:
    """The text of one of :data:`ASSETS`.

    Raises:
        ValueError: for a name not in :data:`ASSETS`.
    """
    names = dict.fromkeys(ASSETS + PLAY_ASSETS)
    if name not in names:
        raise ValueError(f"asset {name!r} is not one of the pages' files; expected one of {', '.join(names)}")
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _head(title: str, asset_prefix: str) -> str:
    """The pages' ``<head>`` (``title`` already escaped); no referrer: a seat's address must not travel."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>{title}</title>
<link rel="stylesheet" href="{asset_prefix}viewer.css">
</head>"""


def page_html(title: str, asset_prefix: str, data: dict | None = None) -> str:
    """``index.html``: the assets under ``asset_prefix`` (``"/static/"`` served, ``""`` exported), and ``data`` (the
    export's every viewpoint) embedded as JSON; without ``data`` the page asks the server."""
    block = ""
    if data is not None:
        # No "<" at all: "</script" would end the element early and "<!--<script" would keep it open past its end;
        # "\u003c" is the same JSON string. ">" and "&" likewise, so no markup can be read into it.
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        block = f'<script type="application/json" id="viewer-data">{text}</script>\n'
    title = html.escape(title)
    return f"""{_head(title, asset_prefix)}
<body>
<header>
  <h1 id="title">{title}</h1>
  <label id="record-label" hidden>Record <select id="record"></select></label>
  <label>Viewpoint <select id="view"></select></label>
  <span id="position"></span>
</header>
<nav>
  <button id="first" title="Home">«</button>
  <button id="prev" title="←">◀</button>
  <input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
  <button id="next" title="→">▶</button>
  <button id="last" title="End">»</button>
  <a id="link" href="#">link to this move</a>
</nav>
<main>
  <section id="table-section"><h2>The table</h2><div id="table"></div>
    <div id="beliefs-section" hidden><h2 id="beliefs-title">Beliefs</h2><div id="beliefs"></div></div>
  </section>
  <section id="step-section"><h2 id="step-title"></h2><div id="result" hidden></div><pre id="content"></pre></section>
  <section id="log-section"><h2>Log</h2><ol id="log"></ol></section>
</main>
<p id="error" role="alert" hidden></p>
{block}<script src="{asset_prefix}table.js"></script>
<script src="{asset_prefix}viewer.js"></script>
</body>
</html>
"""


def play_html(title: str) -> str:
    """The table page of ``traitors-play --web``: the seat's token comes in the address's fragment (``#token=…``),
    which the browser never sends to a server, and the script sends it with each request."""
    title = html.escape(title)
    return f"""{_head(title, "/static/")}
<body class="play">
<header>
  <h1 id="title">{title}</h1>
  <span id="position"></span>
  <button id="rules-button" type="button">Rules</button>
  <button id="leave" type="button">Leave the game</button>
</header>
<p id="opening"></p>
<pre id="rules" hidden></pre>
<main>
  <section id="table-section"><h2>The table</h2><div id="table"></div>
    <div id="beliefs-section" hidden><h2 id="beliefs-title">Beliefs</h2><div id="beliefs"></div></div>
  </section>
  <section id="step-section"><h2 id="step-title"></h2>
    <div id="status" role="status"></div>
    <div id="decision" hidden><p id="prompt"></p><div id="choices"></div></div>
    <div id="result" hidden></div>
    <pre id="content"></pre></section>
  <section id="log-section"><h2>Log</h2><ol id="log"></ol></section>
</main>
<p id="error" role="alert" hidden></p>
<script src="/static/table.js"></script>
<script src="/static/play.js"></script>
</body>
</html>
"""
