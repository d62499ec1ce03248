"""Progress listeners: how a flow running in this process tells the terminal what it is doing.

A flow cannot take a callback as a parameter (Prefect records parameters), so the CLI registers a
listener here for the duration of a run and the flow calls :meth:`Listeners.notify`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


class Listeners:
    def __init__(self) -> None:
        self._listeners: list[Callable[..., None]] = []

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
