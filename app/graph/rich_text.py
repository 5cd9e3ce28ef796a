"""User text in the places Qt reads as rich text.

Qt guesses the format of tooltips, message boxes and labels left at
`Qt.AutoText` (`Qt.mightBeRichText`): a parameter called
`<font color=red size=7>` would be drawn in red and large, and
`<img src="file:///etc/passwd">` would make Qt try to load the file. Every
string that comes from a file or from the user (names, ids, paths,
diagnostics, descriptions of user-defined nodes) is therefore either shown by
a widget set to `Qt.PlainText` or escaped here. Tooltips have no format
switch, so `plain_tooltip` escapes the text and wraps it in a paragraph,
which makes Qt read it as rich text and show the escaped characters as typed.

Qt-free on purpose (standard library only), so the graph, preview and window
layers can all use it.
"""

from __future__ import annotations

import html


def escaped(text: object) -> str:
    """`text` escaped for rich-text content (`<`, `>`, `&`; quotes need no escape outside attributes)."""
    return html.escape(str(text), quote=False)


def plain_tooltip(text: object) -> str:
    """A tooltip that shows `text` exactly as written (line breaks kept); "" stays "" (no tooltip)."""
    if text == "":
        return ""
    return "<p style='white-space:pre-wrap'>" + escaped(text) + "</p>"
