"""Progress listeners: how a flow running in this process tells the terminal what it is doing.

A flow cannot take a callback as a parameter (Prefect records parameters), so the CLI registers a
listener here for the duration of a run and the flow calls :meth:`Listeners.notify`.

Listeners belong to their process: a copy sent elsewhere (a Dask worker) has none. Prefect sends a
task to a Dask worker with its flow, whose function is pickled by value with the module globals it
uses, this registry among them; with the CLI's progress bar in it (a rich console holds a lock),
every ``seams ingest --runner dask`` failed to send its first batch.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


class Listeners:
    def __init__(self) -> None:
        self._listeners: list[Callable[..., None]] = []

    def __reduce__(self):
        return (Listeners, ())  # another process's listeners are not this one's (see the module docstring)

    def add(self, listener: Callable[..., None]) -> None:
        self._listeners.append(listener)

    def remove(self, listener: Callable[..., None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    @contextlib.contextmanager
    def listening(self, listener: Callable[..., None]) -> Iterator[None]:
        self.add(listener)
        try:
            yield
        finally:
            self.remove(listener)

    def notify(self, *args) -> None:
        for listener in list(self._listeners):
            listener(*args)
