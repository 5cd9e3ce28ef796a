"""MaterialX test documents: the scaffolding every hand-written one repeats."""

from __future__ import annotations

VERSION = "1.39"


def document(*elements: str, nodegraph: str | None = None, graph_name: str = "NG", shader: str = "SR",
             material: str = "M", colorspace: str | None = "lin_rec709", attributes: str = "") -> str:
    """A MaterialX document's text: the `<materialx>` element (its version, `colorspace` unless None,
    any further `attributes`), a nodegraph `graph_name` holding `nodegraph` when given, the
    `elements` in order (the shader node among them), and a surfacematerial `material` bound to the
    shader node named `shader`."""
    header = " ".join(part for part in (f'version="{VERSION}"', colorspace and f'colorspace="{colorspace}"', attributes) if part)
    graph = [f'  <nodegraph name="{graph_name}">', nodegraph, "  </nodegraph>"] if nodegraph is not None else []
    return "\n".join(['<?xml version="1.0"?>', f"<materialx {header}>", *graph, *elements,
                      f'  <surfacematerial name="{material}" type="material">',
                      f'    <input name="surfaceshader" type="surfaceshader" nodename="{shader}" />',
                      "  </surfacematerial>", "</materialx>", ""])
