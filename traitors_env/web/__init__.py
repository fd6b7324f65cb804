"""Watch a game record in the browser (``traitors-view``): the per-viewpoint data (:mod:`.payload`), the page
(:mod:`.page`, ``static/``), the server (:mod:`.server`, the ``web`` extra) and the static export (:mod:`.export`).

Nothing is imported here: the server's modules need Starlette and uvicorn, which the package does not require.
"""
