"""The viewer's page: one HTML file, one script and one style sheet (``static/``), for the server and the export alike.

The page is plain HTML, CSS and JavaScript: no build step, nothing fetched from the network. Served, it asks the
server for each step (``/api/meta``, ``/api/step``); exported, it reads every viewpoint's steps from a JSON block in
the page itself (``<script type="application/json" id="viewer-data">``), so it opens from ``file://``.
"""

from __future__ import annotations

import html
import json
from importlib import resources

__all__ = ["ASSETS", "asset_text", "page_html"]

#: The page's files besides ``index.html``.
ASSETS = ("viewer.js", "viewer.css")


def asset_text(name: str) -> str:
    """The text of one of :data:`ASSETS`.

    Raises:
        ValueError: for a name not in :data:`ASSETS`.
    """
    if name not in ASSETS:
        raise ValueError(f"asset {name!r} is not one of the viewer's files; expected one of {', '.join(ASSETS)}")
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


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
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{asset_prefix}viewer.css">
</head>
<body>
<header>
  <h1 id="title">{title}</h1>
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
{block}<script src="{asset_prefix}viewer.js"></script>
</body>
</html>
"""
