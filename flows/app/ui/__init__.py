"""``seams ui``: a local, read-only web page over a seams database.

Four views, HTML rendered on the server (Starlette and Jinja2, which Prefect already brings; no
JavaScript): the knowledge bases and their files (:func:`flows.app.ui.library.Library.files`), one
file's chunks in document order with another strategy's cut beside them, search in one or two modes,
and the last ingest runs. :mod:`flows.app.ui.library` reads the database (and, for a file's details,
the file the manifest names); :mod:`flows.app.ui.text` marks up text (escaped, then highlighted);
:mod:`flows.app.ui.app` is the web application.

What the page can read: the tables of the database it was started on, and the files its knowledge
bases' manifests name (to show their furniture and OCR'd pages, and to cut them another way) — no
path from a request is opened unless the manifest lists it.
"""

from flows.app.ui.app import create_app, serve

__all__ = ["create_app", "serve"]
