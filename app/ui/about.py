"""Help > About: what an artist quotes in a bug report.

`about_facts` gathers (label, value) pairs: the product version (from the
package metadata, `vpl_core.version`), Python, Qt and PySide6, NodeGraphQt,
the windowing platform, where the program runs from (bundle or Python
environment) and the OpenGL context the preview got: its description,
GL_RENDERER, GL_VERSION, GL_VENDOR and the shading language version. The
same facts are the About dialog's table, its "Copy details" text and the
output of `vpl-editor --about` (which probes a context the way the preview
would, since there is no preview widget then).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping

from PySide6 import __version__ as PYSIDE_VERSION  # noqa: N812 - a constant for this module
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.preview.host import PreviewHost
from app.ui.icons import application_icon
from vpl_core.version import version

PRODUCT_NAME = "VPL Material Editor"
Facts = list[tuple[str, str]]


def _nodegraphqt_version() -> str:
    try:
        from NodeGraphQt import __version__ as nodegraph_version
    except ImportError:  # pragma: no cover - a dependency of the editor
        return "not installed"
    return str(nodegraph_version)


def installation() -> str:
    """Where the program runs from: the bundle's folder, or the Python environment's prefix."""
    if getattr(sys, "frozen", False):
        return f"bundle at {os.path.dirname(os.path.abspath(sys.executable))}"
    return f"Python environment at {sys.prefix}"


def gl_facts(description: str, strings: Mapping[str, str], unavailable: str = "") -> Facts:
    """The OpenGL rows: context description and the driver's identification strings."""
    if unavailable:
        return [("OpenGL", f"unavailable: {unavailable}")]
    if not strings:
        return [("OpenGL", f"{description} (the preview has not created its context yet)")]
    return [
        ("OpenGL context", description),
        ("OpenGL renderer", strings.get("renderer", "") or "unknown"),
        ("OpenGL version", strings.get("version", "") or "unknown"),
        ("OpenGL vendor", strings.get("vendor", "") or "unknown"),
        ("Shading language", strings.get("shading_language", "") or "unknown"),
    ]


def about_facts(preview: PreviewHost | None = None, gl: Facts | None = None) -> Facts:
    """Everything About shows. OpenGL rows from `gl` when given, else from `preview` (the window's)."""
    application = QGuiApplication.instance()
    facts: Facts = [
        ("Version", version()),
        ("Qt", f"{qVersion()} (PySide6 {PYSIDE_VERSION})"),
        ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
        ("NodeGraphQt", _nodegraphqt_version()),
        ("System", f"{platform.system()} {platform.release()} {platform.machine()}"),
        ("Window system", application.platformName() if application is not None else "none"),
        ("Installed", installation()),
    ]
    if gl is None:
        if preview is None:
            gl = [("OpenGL", "no preview")]
        elif not preview.available:
            gl = gl_facts("", {}, preview.unavailable_reason or "no OpenGL context")
        else:
            gl = gl_facts(preview.context_description, preview.gl_strings)
    return facts + gl


def probe_gl_facts(choice: str | None = None) -> Facts:
    """The OpenGL rows for the context the preview would get (needs a QGuiApplication)."""
    from app.preview.context import OffscreenContext, describe, select_profile
    from app.preview.renderer import gl_strings

    selection = select_profile(choice)
    if selection.problem:
        return gl_facts("", {}, selection.problem)
    try:
        context = OffscreenContext(selection.profile)
    except RuntimeError as error:
        return gl_facts("", {}, str(error))
    try:
        strings = gl_strings()
        return gl_facts(describe(context.context, strings["renderer"]), strings)
    finally:
        context.done()


def facts_text(facts: Facts) -> str:
    """Plain text of the facts, one "Label: value" per line, headed by the product name."""
    width = max(len(label) for label, _ in facts)
    lines = [PRODUCT_NAME] + [f"{label + ':':<{width + 1}} {value}" for label, value in facts]
    return "\n".join(lines) + "\n"


class AboutDialog(QDialog):
    """The product name, icon and version over a table of `about_facts`; "Copy details" copies them."""

    def __init__(self, facts: Facts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"About {PRODUCT_NAME}")
        self.setObjectName("aboutDialog")
        self._facts = list(facts)

        icon_label = QLabel(self)
        icon_label.setPixmap(application_icon().pixmap(96, 96))
        icon_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        title = QLabel(f"<h2 style='margin:0'>{PRODUCT_NAME}</h2>"
                       f"<p style='margin-top:4px'>Version {dict(facts).get('Version', version())}</p>"
                       "<p>Node-based materials over VPL, compiled to GLSL 4.20 "
                       "and GLSL ES, with a live OpenGL preview.</p>", self)
        title.setWordWrap(True)
        header = QHBoxLayout()
        header.addWidget(icon_label)
        header.addWidget(title, 1)

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.value_labels: dict[str, QLabel] = {}
        for label, value in self._facts:
            value_label = QLabel(value, self)
            value_label.setTextFormat(Qt.TextFormat.PlainText)  # paths and driver strings, not markup
            value_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value_label.setWordWrap(True)
            form.addRow(f"{label}:", value_label)
            self.value_labels[label] = value_label

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("&Copy details", self)
        self.copy_button.setToolTip("Copy these details to the clipboard, for a bug report")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_details)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    @property
    def text(self) -> str:
        return facts_text(self._facts)

    def copy_details(self) -> None:
        QApplication.clipboard().setText(self.text)
