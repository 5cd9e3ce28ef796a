"""The editor's Qt-free state: documents, lowering, programs per target, parameters, files.

`EditorSession` (session.py) is what the window drives; `ParameterModel`
(parameters.py) the one owner of parameter specs and values; `Event`
(events.py) how both tell the widgets. Nothing in this package imports Qt
or OpenGL (tests/app/test_layering.py), so all of it is tested without a
display (tests/app/session/).
"""

from __future__ import annotations

from app.session.artifacts import DEFAULT_TARGET, ArtifactCache, CompiledProgram
from app.session.documents import Document, GraphDocument, ModuleDocument
from app.session.events import Event
from app.session.parameters import ParameterChange, ParameterModel
from app.session.session import EditorSession

__all__ = [
    "DEFAULT_TARGET",
    "ArtifactCache",
    "CompiledProgram",
    "Document",
    "EditorSession",
    "Event",
    "GraphDocument",
    "ModuleDocument",
    "ParameterChange",
    "ParameterModel",
]
