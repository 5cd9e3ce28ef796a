"""The editor's Qt-free state: documents, lowering, programs per target, parameters, files.

`EditorSession` (session.py) is what the window drives; `DocumentModel`
(document_model.py) the graph being edited, its level, variants, stage and
undo history; `ParameterModel` (parameters.py) the one owner of parameter
specs and values; `Event` (events.py) how they tell the widgets. Nothing in this package imports Qt
or OpenGL (tests/app/test_layering.py), so all of it is tested without a
display (tests/app/session/).
"""

from __future__ import annotations

from app.session.artifacts import DEFAULT_TARGET, ArtifactCache, CompiledProgram
from app.session.document_model import DocumentModel
from app.session.documents import Document, GraphDocument, ModuleDocument
from app.session.events import Event
from app.session.parameters import ParameterChange, ParameterModel, VariantState
from app.session.session import EditorSession

__all__ = [
    "DEFAULT_TARGET",
    "ArtifactCache",
    "CompiledProgram",
    "Document",
    "DocumentModel",
    "EditorSession",
    "Event",
    "GraphDocument",
    "ModuleDocument",
    "ParameterChange",
    "ParameterModel",
    "VariantState",
]
