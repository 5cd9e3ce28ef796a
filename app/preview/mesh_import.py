"""Mesh files (Wavefront OBJ, glTF 2.0 `.gltf` / `.glb`) as preview meshes.

Details and the reasoning behind them: docs/decisions.md, "Module notes", `app/preview/mesh_import.py`.
"""

from __future__ import annotations

import errno
import io
import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.material.scene import DEFAULT_VERTEX_COLOR
from app.material.textures import srgb_to_linear
from vpl_core.external_files import ExternalFileError, check_file, read_external

if TYPE_CHECKING:
    from app.preview.mesh import Mesh

MESH_SUFFIXES = (".obj", ".gltf", ".glb")
#: Larger files are refused before their triangles are processed (the preview is for materials, not scenes).
MAX_TRIANGLES = 4_000_000
#: The most meshes a glTF scene may place (node instances), checked before any is expanded.
MAX_INSTANCES = 100_000
#: The most nodes walked in a glTF scene (a node may be a child of many: the walk can grow exponentially).
MAX_NODE_VISITS = 1_000_000

#: glTF component types (specification 3.6.2.2) and their numpy types.
_COMPONENT_TYPES: dict[int, type[np.integer[Any]] | type[np.float32]] = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_COMPONENT_COUNTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_TRIANGLES, _TRIANGLE_STRIP, _TRIANGLE_FAN = 4, 5, 6
#: Extensions that change how primitives are stored; a file requiring one cannot be read here.
_UNSUPPORTED_EXTENSIONS = {
    "KHR_draco_mesh_compression": "Draco-compressed",
    "EXT_meshopt_compression": "meshopt-compressed",
}


class MeshImportError(ValueError):
    """A mesh file could not be used; the message names the file and says why, in one line."""


@dataclass
class _Part:
    """One primitive or OBJ object: float64 arrays, triangles as int64 (M, 3)."""

    positions: np.ndarray
    triangles: np.ndarray
    normals: np.ndarray | None = None
    texcoords: np.ndarray | None = None
    tangents: np.ndarray | None = None
    colors: np.ndarray | None = None  # (N, 4) linear RGBA


@dataclass(frozen=True, eq=False)
class MeshData:
    """A file's triangles, normalised to the view, before tangents are generated.

    float64 `positions`, `normals` (unit), `texcoords` (N, 2) and int64
    `triangles` (M, 3); `tangents` (N, 4) when the file gave them (glTF, with
    its normals), else None; `colors` (N, 4) linear RGBA when the file has
    vertex colours, else None; `notes` say what was generated.
    """

    name: str
    positions: np.ndarray
    normals: np.ndarray
    texcoords: np.ndarray
    triangles: np.ndarray
    tangents: np.ndarray | None
    notes: tuple[str, ...] = field(default=())
    colors: np.ndarray | None = None


@dataclass(frozen=True)
class ImportedMesh:
    """A preview mesh read from a file, with what was generated for it."""

    mesh: Mesh
    notes: tuple[str, ...] = field(default=())


def load_mesh(path: str | Path) -> Mesh:
    """The preview mesh of an OBJ or glTF file (see the module docstring); `MeshImportError` when it cannot be used."""
    return import_mesh(path).mesh


def import_mesh(path: str | Path) -> ImportedMesh:
    """`read_mesh_file`, then the preview mesh with tangents generated when the file has none."""
    from app.preview.mesh import build_mesh

    data = read_mesh_file(path)
    notes = data.notes if data.tangents is not None else data.notes + ("tangents were generated (MikkTSpace convention)",)
    mesh = build_mesh(data.name, data.positions, data.normals, data.texcoords, data.triangles, data.tangents, data.colors)
    return ImportedMesh(mesh, notes)


def read_mesh_file(path: str | Path) -> MeshData:
    """The triangles of an OBJ or glTF file with normals and texture coordinates, normalised to the view."""
    path = Path(path)
    label = str(path)
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise MeshImportError(f"{label}: unsupported mesh format {suffix or '(no suffix)'!r}; expected .obj, .gltf or .glb")
    try:
        check_file(path, suffix[1:])
    except ExternalFileError as error:
        raise MeshImportError(f"{label}: no such mesh file" if error.errno == errno.ENOENT else str(error)) from error
    parts = _read_obj(path, label) if suffix == ".obj" else _read_gltf(path, label)
    return _assemble(path.stem, parts, label)


# --- OBJ ------------------------------------------------------------------------------------------


def _read_obj(path: Path, label: str) -> list[_Part]:
    from trimesh.exchange.obj import load_obj

    try:
        data = read_external(path, "obj")
    except ExternalFileError as error:
        raise MeshImportError(str(error)) from error
    if _relative_indices_before_later_vertices(data):
        # trimesh resolves negative indices against the file's last vertex, not the face's position
        # (trimesh#2364): refuse rather than show a tangle.
        raise MeshImportError(
            f"{label}: faces with negative (relative) indices are followed by more vertices; "
            "this layout is not supported (write absolute indices)"
        )
    # OBJ is ASCII; decoding here keeps trimesh from guessing encodings (it would need charset_normalizer).
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    try:
        loaded = load_obj(io.StringIO(text), skip_materials=True)
    except (ValueError, IndexError, KeyError, TypeError, OverflowError) as error:
        # trimesh's parser reports malformed text with whatever numpy or the indexing raised (an index
        # beyond int64 is an OverflowError).
        raise MeshImportError(f"{label}: not a readable OBJ file ({type(error).__name__}: {_first_line(error)})") from error
    parts = []
    for geometry in loaded.get("geometry", {}).values():
        vertices = np.asarray(geometry.get("vertices", np.zeros((0, 3))))
        faces = np.asarray(geometry.get("faces", np.zeros((0, 3))))
        if faces.ndim != 2 or faces.shape[1] < 3 or faces.shape[0] == 0 or not np.issubdtype(faces.dtype, np.integer):
            continue
        if vertices.ndim != 2 or vertices.shape[1] < 3 or not np.issubdtype(vertices.dtype, np.number):
            raise MeshImportError(f"{label}: malformed vertex lines (each 'v' needs three coordinates)")
        positions = vertices[:, :3].astype(np.float64)
        # Polygons that trimesh leaves whole (all faces of one size above three): fans.
        faces = faces.astype(np.int64)
        triangles = np.concatenate([faces[:, [0, corner, corner + 1]] for corner in range(1, faces.shape[1] - 1)])
        parts.append(
            _Part(
                positions,
                triangles,
                _per_vertex(geometry.get("vertex_normals"), len(positions), 3),
                _per_vertex(getattr(geometry.get("visual"), "uv", None), len(positions), 2),
                colors=_obj_colors(geometry.get("vertex_colors"), len(positions)),
            )
        )
    return parts


def _obj_colors(values: object, count: int) -> np.ndarray | None:
    """An OBJ's per-vertex colours (display colours: sRGB) as linear RGBA, or None when absent or malformed."""
    if values is None:
        return None
    array = np.asarray(values)
    if array.ndim != 2 or array.shape[0] != count or array.shape[1] not in (3, 4) or not np.issubdtype(array.dtype, np.number):
        return None
    colors = array.astype(np.float64)
    if np.issubdtype(array.dtype, np.integer) or (colors.size and np.nanmax(colors) > 1.0):
        colors = colors / 255.0  # written as bytes (0..255), as some exporters do
    rgba = _rgba(colors)
    rgba[:, :3] = srgb_to_linear(np.clip(rgba[:, :3], 0.0, 1.0))
    return rgba


def _rgba(colors: np.ndarray) -> np.ndarray:
    """(N, 3) or (N, 4) colours as (N, 4), alpha 1 where none was given."""
    if colors.shape[1] == 4:
        return colors.copy()
    return np.concatenate([colors, np.ones((len(colors), 1))], axis=1)


def _per_vertex(values: object, count: int, width: int) -> np.ndarray | None:
    """`values` as (count, width) floats, or None when the file's data does not have that shape (then it is generated)."""
    if values is None:
        return None
    array = np.asarray(values)
    if array.ndim != 2 or array.shape[0] != count or array.shape[1] < width or not np.issubdtype(array.dtype, np.number):
        return None
    return array[:, :width].astype(np.float64)


def _relative_indices_before_later_vertices(data: bytes) -> bool:
    """True when a face line with a negative index comes before another vertex line."""
    seen_relative_face = False
    for line in data.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(b"f ") and b"-" in stripped:
            seen_relative_face = True
        elif seen_relative_face and stripped[:2] in (b"v ", b"v\t", b"vt", b"vn"):
            return True
    return False


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else "no details"


# --- glTF -----------------------------------------------------------------------------------------


class _Json:
    """A glTF JSON object: its fields as attributes, None when absent; nested objects wrapped the same way."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = fields

    def __getattr__(self, name: str) -> Any:
        value = self._fields.get(name)
        return _Json(value) if isinstance(value, dict) else value


_GLB_MAGIC = b"glTF"
_GLB_JSON, _GLB_BIN = 0x4E4F534A, 0x004E4942


def _glb_chunks(data: bytes, label: str) -> tuple[bytes, bytes | None]:
    """The JSON chunk and the binary chunk (if any) of a GLB file (glTF 2.0 section 4.4)."""
    if len(data) < 20 or data[:4] != _GLB_MAGIC:
        raise MeshImportError(f"{label}: not a readable glTF file (no GLB header)")
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise MeshImportError(f"{label}: GLB version {version}; only glTF 2.0 is read")
    if length > len(data):
        raise MeshImportError(f"{label}: not a readable glTF file (truncated: {len(data)} of {length} bytes)")
    position, chunks = 12, []
    while position + 8 <= length:
        size, kind = struct.unpack_from("<II", data, position)
        body = data[position + 8 : position + 8 + size]
        if len(body) != size:
            raise MeshImportError(f"{label}: not a readable glTF file (a GLB chunk runs past the end)")
        chunks.append((kind, body))
        position += 8 + size
    if not chunks or chunks[0][0] != _GLB_JSON:
        raise MeshImportError(f"{label}: not a readable glTF file (the GLB does not start with its JSON chunk)")
    binary = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _GLB_BIN else None
    return chunks[0][1], binary


def _gltf_document(path: Path, label: str) -> tuple[_Json, bytes | None]:
    """The top-level JSON object of a .gltf or .glb file, and the GLB's binary chunk."""
    binary = path.suffix.lower() == ".glb"
    try:
        data = read_external(path, "glb" if binary else "gltf")
    except ExternalFileError as error:
        raise MeshImportError(str(error)) from error
    blob = None
    if binary or data[:4] == _GLB_MAGIC:
        data, blob = _glb_chunks(data, label)
    try:
        document = json.loads(data.decode("utf-8"))
    except RecursionError as error:
        raise MeshImportError(f"{label}: not a readable glTF file (the JSON is nested too deeply)") from error
    except (UnicodeDecodeError, ValueError) as error:
        raise MeshImportError(f"{label}: not a readable glTF file ({type(error).__name__}: {_first_line(error)})") from error
    if not isinstance(document, dict):
        raise MeshImportError(f"{label}: not a readable glTF file (the JSON is not an object)")
    return _Json(document), blob


def _read_gltf(path: Path, label: str) -> list[_Part]:
    document, blob = _gltf_document(path, label)
    for extension in _list(document.extensionsRequired, "extensionsRequired", label):
        if extension in _UNSUPPORTED_EXTENSIONS:
            raise MeshImportError(f"{label}: the meshes are {_UNSUPPORTED_EXTENSIONS[extension]} ({extension}), which is not supported")
    instances = _mesh_instances(document, label)
    _check_triangle_budget(document, instances, label)
    buffers = _GltfBuffers(document, blob, path, label)
    placements: dict[int, list[np.ndarray]] = {}
    for mesh_index, transform in instances:
        placements.setdefault(mesh_index, []).append(transform)
    parts: list[_Part] = []
    for mesh_index, transforms in placements.items():
        mesh = _item(document.meshes, mesh_index, "mesh", label)
        for primitive in _list(mesh.primitives, "a mesh's primitives", label):
            part = _read_primitive(document, buffers, _object(primitive, f"a primitive of mesh {mesh_index}", label), label)
            if part is not None:
                # Every instance of a primitive in one part: the cost is per mesh, not per instance.
                parts.append(_transformed(part, transforms[0]) if len(transforms) == 1 else _instanced(part, np.stack(transforms)))
    return parts


def _check_triangle_budget(document: _Json, instances: list[tuple[int, np.ndarray]], label: str) -> None:
    """Refuse a scene whose triangles, counted from its accessors' counts, exceed MAX_TRIANGLES (nothing read yet)."""
    per_mesh: dict[int, int] = {}
    total = 0
    for mesh_index, _ in instances:
        if mesh_index not in per_mesh:
            mesh = _item(document.meshes, mesh_index, "mesh", label)
            count = 0
            for primitive in _list(mesh.primitives, "a mesh's primitives", label):
                primitive = _object(primitive, f"a primitive of mesh {mesh_index}", label)
                mode = _TRIANGLES if primitive.mode is None else primitive.mode
                attributes = primitive.attributes
                source = primitive.indices if primitive.indices is not None else getattr(attributes, "POSITION", None)
                if mode not in (_TRIANGLES, _TRIANGLE_STRIP, _TRIANGLE_FAN) or source is None:
                    continue
                corners = _integer(_item(document.accessors, source, "accessor", label).count, f"accessor {source}'s count", label)
                count += corners // 3 if mode == _TRIANGLES else max(corners - 2, 0)
            per_mesh[mesh_index] = count
        total += per_mesh[mesh_index]
        if total > MAX_TRIANGLES:
            raise MeshImportError(f"{label}: the scene places more than {MAX_TRIANGLES} triangles "
                                  f"({len(instances)} mesh instances); the preview takes at most {MAX_TRIANGLES}")


class _GltfBuffers:
    """The bytes of each buffer: GLB's binary chunk, data URIs or files next to the .gltf."""

    def __init__(self, document: _Json, blob: bytes | None, path: Path, label: str) -> None:
        self.document = document
        self.blob = blob
        self.path = path
        self.label = label
        self._data: dict[int, bytes] = {}

    def data(self, index: int) -> bytes:
        if index not in self._data:
            self._data[index] = self._load(index)
        return self._data[index]

    def _load(self, index: int) -> bytes:
        buffer = _item(self.document.buffers, index, "buffer", self.label)
        uri = buffer.uri
        if uri is not None and not isinstance(uri, str):
            raise MeshImportError(f"{self.label}: buffer {index} has a malformed URI")
        if uri is None:
            if self.blob is None:
                raise MeshImportError(f"{self.label}: buffer {index} has no data (no URI and no GLB binary chunk)")
            data = self.blob
        elif uri.startswith("data:"):
            # Bounded by the document's own budget: the payload is part of the JSON already read.
            _, _, payload = uri.partition(",")
            import base64
            import binascii

            try:
                data = base64.b64decode(payload, validate=False)
            except (binascii.Error, ValueError) as error:
                raise MeshImportError(f"{self.label}: buffer {index} has a malformed data URI") from error
        else:
            from urllib.parse import unquote

            try:
                data = read_external(self.path.parent / unquote(uri), "buffer")
            except (ExternalFileError, ValueError) as error:
                reason = error.reason if isinstance(error, ExternalFileError) else str(error)
                raise MeshImportError(f"{self.label}: cannot read buffer file {uri[:200]!r}: {reason}") from error
        if isinstance(buffer.byteLength, int) and len(data) < buffer.byteLength:
            raise MeshImportError(f"{self.label}: buffer {index} holds {len(data)} bytes, {buffer.byteLength} declared")
        return data


def _integer(value: object, what: str, label: str, default: int | None = None) -> int:
    """A non-negative integer field of the glTF document."""
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MeshImportError(f"{label}: {what} must be a non-negative integer, not {value!r}")
    return value


def _item(items: object, index: object, what: str, label: str) -> _Json:
    """items[index], checked: an index that exists and a JSON object there (the file may hold anything)."""
    if isinstance(index, bool) or not isinstance(index, int) or not isinstance(items, list) or not 0 <= index < len(items):
        raise MeshImportError(f"{label}: refers to {what} {index!r}, which does not exist")
    return _object(items[index], f"{what} {index}", label)


def _object(value: object, what: str, label: str) -> _Json:
    if not isinstance(value, (dict, _Json)):
        raise MeshImportError(f"{label}: {what} is malformed")
    return value if isinstance(value, _Json) else _Json(value)


def _numbers(value: object, count: int, what: str, label: str) -> np.ndarray | None:
    """An optional list of `count` finite numbers (node transforms)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != count or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise MeshImportError(f"{label}: {what} must be {count} numbers")
    array = np.asarray(value, dtype=np.float64)
    if not np.isfinite(array).all():
        raise MeshImportError(f"{label}: {what} must be finite")
    return array


def _list(value: object, what: str, label: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MeshImportError(f"{label}: {what} must be a list")
    return value


def _node_matrix(node: _Json, label: str) -> np.ndarray:
    """The node's local transform (glTF 5.25: a column-major matrix, or translation * rotation * scale)."""
    matrix = _numbers(node.matrix, 16, "a node's matrix", label)
    if matrix is not None:
        return matrix.reshape(4, 4).T
    local = np.eye(4)
    scale = _numbers(node.scale, 3, "a node's scale", label)
    if scale is not None:
        local = np.diag([*scale, 1.0])
    rotation = _numbers(node.rotation, 4, "a node's rotation", label)
    if rotation is not None:
        x, y, z, w = rotation / (np.linalg.norm(rotation) or 1.0)
        turn = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0.0],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0.0],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ]
        )
        local = turn @ local
    translation = _numbers(node.translation, 3, "a node's translation", label)
    if translation is not None:
        moved = np.eye(4)
        moved[:3, 3] = translation
        local = moved @ local
    return local


def _mesh_instances(document: _Json, label: str) -> list[tuple[int, np.ndarray]]:
    """(mesh index, world matrix) for every node with a mesh in the default scene (or every mesh when there is no scene).

    At most MAX_INSTANCES meshes placed and MAX_NODE_VISITS nodes walked: the
    file is refused before its instances are expanded any further.
    """
    scenes = _list(document.scenes, "scenes", label)
    if not scenes:
        return [(index, np.eye(4)) for index in range(len(_list(document.meshes, "meshes", label)))]
    scene_index = document.scene if isinstance(document.scene, int) and not isinstance(document.scene, bool) else 0
    scene = _item(scenes, scene_index, "scene", label)
    instances = []
    walked_too_far = f"{label}: the scene walks more than {MAX_NODE_VISITS} nodes (nodes shared as children?)"
    roots = _list(scene.nodes, "a scene's nodes", label)
    if len(roots) > MAX_NODE_VISITS:  # refused before a matrix is made for each
        raise MeshImportError(walked_too_far)
    identity = np.eye(4)  # shared: a parent matrix is only read
    stack = [(node, identity, 0) for node in roots]
    visits = 0
    while stack:
        node_index, parent, depth = stack.pop()
        if depth > 64:
            raise MeshImportError(f"{label}: the node hierarchy is deeper than 64 levels (a cycle?)")
        visits += 1
        if visits > MAX_NODE_VISITS:
            raise MeshImportError(walked_too_far)
        node = _item(document.nodes, node_index, "node", label)
        world = parent @ _node_matrix(node, label)
        if node.mesh is not None:
            instances.append((_integer(node.mesh, f"node {node_index}'s mesh", label), world))
            if len(instances) > MAX_INSTANCES:
                raise MeshImportError(f"{label}: the scene places more than {MAX_INSTANCES} mesh instances; "
                                      f"the preview takes at most {MAX_INSTANCES}")
        children = _list(node.children, "a node's children", label)
        if visits + len(stack) + len(children) > MAX_NODE_VISITS:  # every node stacked is walked
            raise MeshImportError(walked_too_far)
        stack.extend((child, world, depth + 1) for child in children)
    return instances


def _accessor(document: _Json, buffers: _GltfBuffers, index: object, label: str) -> np.ndarray:
    """An accessor's elements as a (count, components) array (glTF 3.6.2), normalised integers as floats."""
    accessor = _item(document.accessors, index, "accessor", label)
    if accessor.sparse is not None:
        raise MeshImportError(f"{label}: accessor {index} is sparse, which is not supported")
    dtype = _COMPONENT_TYPES.get(accessor.componentType) if isinstance(accessor.componentType, int) else None
    components = _COMPONENT_COUNTS.get(accessor.type) if isinstance(accessor.type, str) else None
    if dtype is None or components is None:
        raise MeshImportError(f"{label}: accessor {index} has an invalid type ({accessor.componentType!r}, {accessor.type!r})")
    count = _integer(accessor.count, f"accessor {index}'s count", label)
    if accessor.bufferView is None:
        return np.zeros((count, components))  # all zeros, as the specification says
    view = _item(document.bufferViews, accessor.bufferView, "buffer view", label)
    data = buffers.data(_integer(view.buffer, "a buffer view's buffer", label))
    element_size = np.dtype(dtype).itemsize * components
    stride = _integer(view.byteStride, "a buffer view's byteStride", label, default=0) or element_size
    view_start = _integer(view.byteOffset, "a buffer view's byteOffset", label, default=0)
    end_of_view = view_start + _integer(view.byteLength, "a buffer view's byteLength", label)
    start = view_start + _integer(accessor.byteOffset, f"accessor {index}'s byteOffset", label, default=0)
    needed = start + (count - 1) * stride + element_size if count else start
    if stride < element_size or needed > end_of_view or end_of_view > len(data):
        raise MeshImportError(f"{label}: accessor {index} reads past the end of its buffer view")
    if count == 0:
        return np.zeros((0, components))
    array = np.lib.stride_tricks.as_strided(
        np.frombuffer(data, dtype=np.uint8, count=needed - start, offset=start),
        shape=(count, element_size),
        strides=(stride, 1),
    )
    values = np.ascontiguousarray(array).view(dtype).reshape(count, components).astype(np.float64)
    if accessor.normalized and issubclass(dtype, np.integer):  # every component type but float32
        info = np.iinfo(dtype)
        values = np.maximum(values / info.max, -1.0)
    return values


def _read_primitive(document: _Json, buffers: _GltfBuffers, primitive: _Json, label: str) -> _Part | None:
    mode = _TRIANGLES if primitive.mode is None else primitive.mode
    if mode not in (_TRIANGLES, _TRIANGLE_STRIP, _TRIANGLE_FAN):
        return None  # points and lines: nothing to shade
    attributes = primitive.attributes
    if not isinstance(attributes, _Json) or attributes.POSITION is None:
        raise MeshImportError(f"{label}: a primitive has no POSITION attribute")
    positions = _accessor(document, buffers, attributes.POSITION, label)
    if positions.shape[1] != 3:
        raise MeshImportError(f"{label}: POSITION must be a VEC3 accessor")
    if primitive.indices is not None:
        order = _accessor(document, buffers, primitive.indices, label).reshape(-1)
        if order.size and (order.min() < 0 or order.max() >= len(positions) or np.any(order != np.floor(order))):
            raise MeshImportError(f"{label}: a primitive's indices refer to vertices it does not have")
        order = order.astype(np.int64)
    else:
        order = np.arange(len(positions), dtype=np.int64)
    triangles = _triangles(order, mode)

    def optional(name: str, width: int) -> np.ndarray | None:
        index = getattr(attributes, name, None)
        if index is None:
            return None
        values = _accessor(document, buffers, index, label)
        if values.shape != (len(positions), width):
            raise MeshImportError(f"{label}: {name} has {values.shape[0]} elements of {values.shape[1]}, expected {len(positions)} of {width}")
        return values

    normals = optional("NORMAL", 3)
    texcoords = optional("TEXCOORD_0", 2)
    tangents = optional("TANGENT", 4)
    colors = None
    if getattr(attributes, "COLOR_0", None) is not None:
        # Linear RGB or RGBA (glTF 3.7.2.1); normalised integers were turned into 0..1 by _accessor.
        values = _accessor(document, buffers, attributes.COLOR_0, label)
        if values.shape[0] != len(positions) or values.shape[1] not in (3, 4):
            raise MeshImportError(f"{label}: COLOR_0 has {values.shape[0]} elements of {values.shape[1]}, "
                                  f"expected {len(positions)} of 3 or 4")
        colors = _rgba(values)
    if texcoords is not None:
        texcoords = np.stack([texcoords[:, 0], 1.0 - texcoords[:, 1]], axis=-1)  # glTF's origin is the top left
    if normals is None:
        tangents = None  # glTF 3.7.2.1: without normals, given tangents are ignored
    return _Part(positions, triangles, normals, texcoords, tangents, colors)


def _triangles(order: np.ndarray, mode: int) -> np.ndarray:
    if mode == _TRIANGLES:
        usable = len(order) - len(order) % 3
        return order[:usable].reshape(-1, 3)
    if len(order) < 3:
        return np.zeros((0, 3), dtype=np.int64)
    if mode == _TRIANGLE_STRIP:
        first, second, third = order[:-2], order[1:-1], order[2:]
        odd = np.arange(len(first)) % 2 == 1
        # Every other strip triangle is wound the other way (glTF 3.7.2.1).
        return np.stack([np.where(odd, second, first), np.where(odd, first, second), third], axis=-1)
    return np.stack([np.full(len(order) - 2, order[0]), order[1:-1], order[2:]], axis=-1)  # fan


def _instanced(part: _Part, matrices: np.ndarray) -> _Part:
    """One part holding `part` placed by each of `matrices` (k, 4, 4); what `_transformed` does to each, at once."""
    count, vertices = len(matrices), len(part.positions)
    linear = matrices[:, :3, :3]
    positions = (np.einsum("kij,nj->kni", linear, part.positions) + matrices[:, None, :3, 3]).reshape(-1, 3)
    normals = tangents = None
    if part.normals is not None:
        normal_matrices = np.linalg.pinv(linear)  # rows times the inverse: the inverse transpose, per instance
        normals = np.einsum("nj,kji->kni", part.normals, normal_matrices).reshape(-1, 3)
    mirrored = np.linalg.det(linear) < 0.0
    if part.tangents is not None:
        directions = np.einsum("kij,nj->kni", linear, part.tangents[:, :3])
        signs = np.where(mirrored[:, None, None], -1.0, 1.0) * part.tangents[None, :, 3:4]
        tangents = np.concatenate([directions, np.broadcast_to(signs, (count, vertices, 1))], axis=2).reshape(-1, 4)
    offsets = (np.arange(count, dtype=np.int64) * vertices)[:, None, None]
    triangles = np.where(mirrored[:, None, None], part.triangles[None, :, ::-1], part.triangles[None]) + offsets
    texcoords = None if part.texcoords is None else np.tile(part.texcoords, (count, 1))
    colors = None if part.colors is None else np.tile(part.colors, (count, 1))
    return _Part(positions, triangles.reshape(-1, 3), normals, texcoords, tangents, colors)


def _transformed(part: _Part, matrix: np.ndarray) -> _Part:
    if np.allclose(matrix, np.eye(4)):
        return part
    linear = matrix[:3, :3]
    positions = part.positions @ linear.T + matrix[:3, 3]
    normals = tangents = None
    if part.normals is not None:
        normals = part.normals @ np.linalg.pinv(linear)  # the inverse transpose, applied to rows
    if part.tangents is not None:
        tangents = np.concatenate([part.tangents[:, :3] @ linear.T, part.tangents[:, 3:4]], axis=1)
    triangles = part.triangles
    if np.linalg.det(linear) < 0.0:
        # A mirroring transform turns counter-clockwise triangles clockwise (glTF 3.7.4); so is the tangent frame.
        triangles = triangles[:, ::-1]
        if tangents is not None:
            tangents[:, 3] = -tangents[:, 3]
    return _Part(positions, triangles, normals, part.texcoords, tangents, part.colors)


# --- common ---------------------------------------------------------------------------------------


def _unit_rows(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    length = np.linalg.norm(vectors, axis=1)
    good = length > 1e-12
    return vectors / np.where(good, length, 1.0)[:, None], good


def _flat(part: _Part) -> _Part:
    """Every triangle with its own three vertices and its face normal (no normals in the file)."""
    corners = part.triangles.reshape(-1)
    positions = part.positions[corners]
    a, b, c = (part.positions[part.triangles[:, k]] for k in range(3))
    face_normals, _ = _unit_rows(np.cross(b - a, c - a))
    normals = np.repeat(face_normals, 3, axis=0)
    texcoords = None if part.texcoords is None else part.texcoords[corners]
    colors = None if part.colors is None else part.colors[corners]
    triangles = np.arange(len(corners), dtype=np.int64).reshape(-1, 3)
    return _Part(positions, triangles, normals, texcoords, None, colors)


def box_projection(part: _Part) -> _Part:
    """Texture coordinates for a part without them: each triangle projected along its normal's dominant axis.

    The largest half extent of the bounding box maps to [0, 1] (the same
    scale on every axis, so texels stay square: each face of a cube gets the
    whole texture), oriented so every face of a cube reads its texture
    unmirrored from outside. Vertices are split where triangles of
    different axes meet.
    """
    a, b, c = (part.positions[part.triangles[:, k]] for k in range(3))
    face_normals = np.cross(b - a, c - a)
    axis = np.argmax(np.abs(face_normals), axis=1)
    sign = np.sign(face_normals[np.arange(len(axis)), axis])
    sign[sign == 0] = 1.0
    corners = part.triangles.reshape(-1)
    corner_axis = np.repeat(axis, 3)
    corner_sign = np.repeat(sign, 3)
    low, high = part.positions.min(axis=0), part.positions.max(axis=0)
    centred = (part.positions[corners] - 0.5 * (low + high)) / max(float((high - low).max()) / 2.0, 1e-30)
    x, y, z = centred[:, 0], centred[:, 1], centred[:, 2]
    # (u, v) per dominant axis and direction: seen from outside, u to the right and v up.
    u = np.select([corner_axis == 0, corner_axis == 1], [-corner_sign * z, x], corner_sign * x)
    v = np.select([corner_axis == 0, corner_axis == 1], [y, -corner_sign * z], y)
    texcoords = 0.5 + 0.5 * np.stack([u, v], axis=-1)
    key = corners * 6 + corner_axis * 2 + (corner_sign > 0)
    unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    del unique
    source = corners[first]
    return _Part(
        part.positions[source],
        inverse.reshape(-1, 3).astype(np.int64),
        None if part.normals is None else part.normals[source],
        texcoords[first],
        None if part.tangents is None else part.tangents[source],
        None if part.colors is None else part.colors[source],
    )


def _checked(part: _Part, label: str) -> _Part:
    if not np.isfinite(part.positions).all():
        raise MeshImportError(f"{label}: vertex positions contain NaN or infinite values")
    if part.triangles.size and (part.triangles.min() < 0 or part.triangles.max() >= len(part.positions)):
        raise MeshImportError(f"{label}: triangles refer to vertices the mesh does not have")
    for name in ("normals", "texcoords", "tangents", "colors"):
        values = getattr(part, name)
        if values is not None and not np.isfinite(values).all():
            setattr(part, name, None)  # regenerated below, as if the file had none
    # Zero-area triangles draw nothing and have no tangent frame.
    a, b, c = (part.positions[part.triangles[:, k]] for k in range(3))
    area = np.linalg.norm(np.cross(b - a, c - a), axis=1)
    scale = max(float(np.ptp(part.positions, axis=0).max()) if len(part.positions) else 0.0, 1e-30)
    part.triangles = part.triangles[area > 1e-12 * scale * scale]
    return part


def _assemble(name: str, parts: list[_Part], label: str) -> MeshData:
    parts = [_checked(part, label) for part in parts]
    parts = [part for part in parts if len(part.triangles)]
    if not parts:
        raise MeshImportError(f"{label}: the file has no triangles (only points, lines or degenerate faces)")
    triangle_count = sum(len(part.triangles) for part in parts)
    if triangle_count > MAX_TRIANGLES:
        raise MeshImportError(f"{label}: {triangle_count} triangles; the preview takes at most {MAX_TRIANGLES}")
    notes = []
    # Normalise to the view: centre of the bounding box at the origin, bounding radius 1.
    low = np.min([part.positions.min(axis=0) for part in parts], axis=0)
    high = np.max([part.positions.max(axis=0) for part in parts], axis=0)
    centre = 0.5 * (low + high)
    radius = max(float(np.linalg.norm(part.positions - centre, axis=1).max()) for part in parts)
    if not radius > 0.0:
        raise MeshImportError(f"{label}: all vertices are at one point")
    for part in parts:
        part.positions = (part.positions - centre) / radius
    if any(part.normals is None for part in parts):
        notes.append("the file has no normals: flat normals were generated")
        parts = [part if part.normals is not None else _flat(part) for part in parts]
    if any(part.texcoords is None for part in parts):
        notes.append("the file has no texture coordinates: a box projection was generated")
        parts = [part if part.texcoords is not None else box_projection(part) for part in parts]
    given_tangents = all(part.tangents is not None for part in parts)
    given_colors = any(part.colors is not None for part in parts)
    offset = 0
    positions, normals, texcoords, tangents, colors, triangles = [], [], [], [], [], []
    for part in parts:
        assert part.normals is not None and part.texcoords is not None  # generated above when missing
        positions.append(part.positions)
        normals.append(_unit_rows(part.normals)[0])
        texcoords.append(part.texcoords)
        if given_tangents and part.tangents is not None:
            tangents.append(part.tangents)
        if given_colors:
            colors.append(part.colors if part.colors is not None else np.tile(DEFAULT_VERTEX_COLOR, (len(part.positions), 1)))
        triangles.append(part.triangles + offset)
        offset += len(part.positions)
    tangent_array: np.ndarray | None = None
    if given_tangents:
        tangent_array = np.concatenate(tangents)
        unit, _ = _unit_rows(tangent_array[:, :3])
        tangent_array = np.concatenate([unit, np.where(tangent_array[:, 3:4] < 0.0, -1.0, 1.0)], axis=1)
    optional = ([tangent_array] if tangent_array is not None else []) + ([np.concatenate(colors)] if given_colors else [])
    vertices, triangle_array = _welded(
        [np.concatenate(positions), np.concatenate(normals), np.concatenate(texcoords), *optional], np.concatenate(triangles)
    )
    return MeshData(name, vertices[0], vertices[1], vertices[2], triangle_array, vertices[3] if given_tangents else None,
                    tuple(notes), vertices[-1] if given_colors else None)


def _welded(attributes: list[np.ndarray], triangles: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """One vertex per distinct combination of attributes (as float32, what is uploaded); unused vertices dropped."""
    rows = np.concatenate([np.asarray(values, dtype=np.float32) for values in attributes], axis=1)
    used = np.unique(triangles)
    _, first, inverse = np.unique(rows[used], axis=0, return_index=True, return_inverse=True)
    remap = np.empty(len(rows), dtype=np.int64)
    remap[used] = inverse.reshape(-1)
    source = used[first]
    return [np.asarray(values)[source] for values in attributes], remap[triangles]
