"""The system's Chromium driven by Playwright, for the browser tests (traitors-view, traitors-play --web).

``.ci/run`` installs Chromium from the system packages (``apt-get install chromium``) and Playwright with the ``dev``
extra; where either is missing the browser tests skip, saying which. Screenshots for the docs come from these tests:
with ``TRAITORS_DOCS_IMAGES=docs/img`` they are written there (:func:`docs_screenshot`).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def browser_missing() -> str | None:
    """Why no browser test can run here (``None``: Playwright and Chromium are both there)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the browser tests drive Chromium through Playwright (pip install playwright; the dev extra)"
    if not CHROMIUM.exists():
        return f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@contextmanager
def chromium():
    """A headless Chromium browser, closed on leaving."""
    import playwright.sync_api as sync_api

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, **options):
    """``(page, errors)``: a page whose script errors are collected in ``errors``."""
    page = browser.new_page(**options)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def docs_screenshot(page, name: str, tmp_path: Path) -> Path:
    """Screenshot ``page`` into ``tmp_path`` and, with ``TRAITORS_DOCS_IMAGES`` set, into that folder as ``name``."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=False)
    folder = os.environ.get("TRAITORS_DOCS_IMAGES")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(shot.read_bytes())
    return shot
