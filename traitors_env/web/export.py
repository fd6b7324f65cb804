"""``traitors-view --html OUTDIR``: the viewer as static files that open from ``file://``, without a server.

``OUTDIR/index.html`` holds every viewpoint's steps as JSON (``everything`` included: the export is for after the
game, like the record itself), ``viewer.js`` and ``viewer.css`` are the served page's own files. It writes into a new or empty folder only.
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
    """Write ``index.html`` and the assets into ``outdir`` (made where missing); returns the path of ``index.html``.

    Raises:
        ValueError: for an empty ``outdir``.
        NotADirectoryError: where ``outdir`` (or a folder above it) is a file.
        FileExistsError: where ``outdir`` already holds a file of the export's names (nothing is written then: the
            export replaces no one's files).
        OSError: where the folder or a file cannot be written.
    """
    if not str(outdir).strip():
        raise ValueError("an empty folder name; expected a new or empty folder for the export")
    outdir = Path(outdir)
    for folder in (outdir, *outdir.parents):
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{folder} is a file; expected a new or empty folder for the export")
    names = ("index.html", *ASSETS)
    taken = [name for name in names if (outdir / name).exists() or (outdir / name).is_symlink()]
    if taken:
        raise FileExistsError(f"{outdir} already holds {', '.join(taken)}; expected a new or empty folder for the "
                              "export (it would replace them)")
    outdir.mkdir(parents=True, exist_ok=True)
    index = outdir / "index.html"
    atomic_write_text(index, page_html(title, "", export_data(data)))
    for name in ASSETS:
        atomic_write_text(outdir / name, asset_text(name))
    return index
