"""``traitors-view --html OUTDIR``: the viewer as static files that open from ``file://``, without a server.

``OUTDIR/index.html`` holds every viewpoint's steps as JSON (``everything`` included: the export is for after the
game, like the record itself), ``viewer.js`` and ``viewer.css`` are the served page's own files.
"""

from __future__ import annotations

from pathlib import Path

from ..files import atomic_write_text
from .page import ASSETS, asset_text, page_html
from .payload import ReplayData

__all__ = ["export_data", "write_export"]


def export_data(data: ReplayData) -> dict:
    """The record's meta and every viewpoint's steps, as the page reads them."""
    meta = data.meta()
    return {"meta": meta, "views": {view: data.view_steps(view) for view in meta["views"]}}


def write_export(data: ReplayData, title: str, outdir: str | Path) -> Path:
    """Write ``index.html`` and the assets into ``outdir`` (made where missing; files of the same names replaced);
    returns the path of ``index.html``.

    Raises:
        NotADirectoryError: where ``outdir`` (or a folder above it) is a file.
    """
    outdir = Path(outdir)
    for folder in (outdir, *outdir.parents):
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"--html {outdir}: {folder} is a file; expected a folder for the export")
    outdir.mkdir(parents=True, exist_ok=True)
    index = outdir / "index.html"
    atomic_write_text(index, page_html(title, "", export_data(data)))
    for name in ASSETS:
        atomic_write_text(outdir / name, asset_text(name))
    return index
