"""Taking a material out of the editor: baking, glTF 2.0 and MaterialX (docs/interchange.md).

- `surface`: what a material's output node says, as plain data (alpha mode,
  which channels vary, their constant values); no GL.
- `bake`: the output's channels rendered in the mesh's UV space on the GPU
  (tiles, supersampling, dilation across UV seams); needs a current OpenGL
  context (`bake_context`).
- `images`: coverage-weighted downsampling, seam dilation and the image
  files (PNG 8/16-bit, OpenEXR) through OpenImageIO.
- `gltf`: `.glb` / `.gltf` files of a mesh and a baked material (pygltflib).
- `mtlx`: MaterialX 1.39 documents (export with baked fallbacks, import of
  the mapped subset).
- `commands`: `vpl bake`, `vpl export-gltf`, `vpl export-mtlx`, registered
  with the `vpl` command through its plug-in point (docs/architecture.md).

The layer sits beside `app.ui`: it may use the material model, the session's
file helpers and the preview's renderer and meshes, never the window.
"""
