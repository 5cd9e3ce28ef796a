"""The live material preview (docs/architecture.md, "The preview host contract").

`renderer` holds the GL logic and needs only a current context; `widget`
is the thin QOpenGLWidget around it; `parameters_panel` edits material
parameters; `screenshot` renders one frame of a file offscreen. `mesh`,
`camera`, `std140` and `textures` are numpy-only and need no context.
"""
