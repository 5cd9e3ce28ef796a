"""glTF 2.0 export: a mesh and a baked material as `.glb` or `.gltf`, written with pygltflib.

The material is glTF's core metallic-roughness model (the Surface Output is
that model), field by field (docs/interchange.md has the table):

- `baseColorFactor` / `baseColorTexture` (8-bit sRGB, opacity in alpha when
  the alpha mode is not OPAQUE);
- one packed **ORM** image (R occlusion, G roughness, B metallic, A the
  specular factor when it varies) serves `metallicRoughnessTexture`,
  `occlusionTexture` and KHR_materials_specular's `specularTexture` (which
  reads alpha); constant metallic/roughness are factors, no texture;
- `normalTexture` (tangent space, green up) with `scale` 1 when the normal or
  the height is connected (the height's bump baked in, as the preview bumps
  it); the mesh then carries TANGENT;
- the height (core glTF has no slot for it): `<stem>_height.png` beside the
  file (.glb too), named in the material's `extras.height` with its `scale`
  (world units) and `midLevel`;
- emission: `emissiveFactor`/`emissiveTexture` (sRGB) normalised by the
  largest emitted value M, and KHR_materials_emissive_strength = M when M > 1
  (emission above 1 cannot be stored otherwise);
- `alphaMode` MASK (with `alphaCutoff`) or BLEND from the opacity and alpha
  clip (app.export.surface);
- KHR_materials_specular when the specular factor is not 1;
- an Unlit Output material is KHR_materials_unlit, its display colour
  decoded to linear for `baseColorFactor` (texture: stored as is, sRGB).
- an OpenPBR Surface material is core plus the KHR extensions matching its
  lobes (app.export.gltf_openpbr; what glTF cannot carry is named in the
  notes, which `export_gltf` adds to the bake's).

Geometry: POSITION, NORMAL (unit), TEXCOORD_0 with v flipped (glTF's origin is
the top left: v_gltf = 1 − v; only when a texture reads it), TANGENT (only
with a normal texture), uint16 or uint32 indices. The handedness sign needs no change: flipping v flips
both the bitangent's expected direction and the image's up direction.

A `.glb` holds everything; a `.gltf` is written with `<stem>.bin` and the
PNG images beside it. Files are written atomically.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.export.bake import BakedMaterial
from app.export.gltf_extensions import surface_extensions
from app.export.gltf_openpbr import build_openpbr, mesh_thickness
from app.export.images import decode_srgb, encode_srgb, quantize, write_image
from app.export.maps import channel_values, unit_vectors
from app.export.surface import OPENPBR, ExportError
from app.material.graph import MaterialGraph
from vpl_core.atomic_write import write_atomically

#: Emission up to this is stored directly; above it KHR_materials_emissive_strength carries the scale.
EMISSIVE_LIMIT = 1.0
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963
_FLOAT, _UNSIGNED_SHORT, _UNSIGNED_INT = 5126, 5123, 5125
_LINEAR, _LINEAR_MIPMAP_LINEAR, _REPEAT = 9729, 9987, 10497


@dataclass
class GltfMaterial:
    """The material part of a glTF document, before it is written (tests look at it)."""

    material: dict[str, Any]
    images: dict[str, np.ndarray] = field(default_factory=dict)  # name -> uint8 pixels, in texture index order
    color_spaces: dict[str, str] = field(default_factory=dict)
    extensions: list[str] = field(default_factory=list)
    needs_tangents: bool = False
    #: Images written beside the file, not glTF textures (name -> uint8 pixels): the height, which core glTF
    #: has no slot for; `material["extras"]["height"]` names the file, its scale and mid level.
    side_images: dict[str, np.ndarray] = field(default_factory=dict)
    #: What the glTF material could not carry, by parameter name (export_gltf adds them to the bake's notes).
    notes: list[str] = field(default_factory=list)


def _is(values: tuple[float, ...] | None, expected: float) -> bool:
    return values is not None and all(abs(value - expected) <= 0.5 / 255.0 for value in values)


def build_material(baked: BakedMaterial, name: str, thickness: float = 1.0) -> GltfMaterial:
    """The glTF material (as JSON data) and the images it refers to, by the table of the module docstring
    (an OpenPBR Surface: app.export.gltf_openpbr). `thickness`: the mesh's, for KHR_materials_volume."""
    description = baked.description
    result = GltfMaterial({"name": name})
    material = result.material
    textures: list[str] = []

    def texture(image_name: str, pixels: np.ndarray, color_space: str) -> int:
        if image_name not in result.images:
            result.images[image_name] = pixels
            result.color_spaces[image_name] = color_space
            textures.append(image_name)
        return textures.index(image_name)

    if description.kind == OPENPBR:
        build_openpbr(result, baked, texture, lambda m, e, r: _emissive(m, e, r, texture, baked), thickness)
        return result
    alpha_mode = description.alpha_mode
    opacity = baked.constant("opacity")
    base = baked.constant("base_color")
    if description.unlit:
        result.extensions.append("KHR_materials_unlit")
        material["extensions"] = {"KHR_materials_unlit": {}}
    pbr: dict[str, Any] = {}
    uses_alpha = alpha_mode != "OPAQUE"
    if base is not None and (opacity is not None or not uses_alpha):
        color = decode_srgb(np.clip(base, 0.0, 1.0)) if description.unlit else np.clip(base, 0.0, 1.0)
        alpha = opacity[0] if (uses_alpha and opacity is not None) else 1.0
        pbr["baseColorFactor"] = [*(round(float(c), 6) for c in color), round(float(alpha), 6)]
    else:
        rgb = channel_values(baked, "base_color")
        encoded = quantize(np.clip(rgb, 0.0, 1.0)) if description.unlit else quantize(encode_srgb(rgb))
        if uses_alpha:
            encoded = np.concatenate([encoded, quantize(channel_values(baked, "opacity"))], axis=2)
        pbr["baseColorTexture"] = {"index": texture("base_color", encoded, "srgb")}
    if description.unlit:
        pbr.update({"metallicFactor": 0.0, "roughnessFactor": 1.0})
        material["pbrMetallicRoughness"] = pbr
        _alpha(material, alpha_mode, description.alpha_cutoff)
        return result

    metallic, roughness, occlusion, specular = (baked.constant(n) for n in ("metallic", "roughness", "occlusion", "specular"))
    specular_varies = specular is None
    orm_needed = metallic is None or roughness is None or not _is(occlusion, 1.0) or specular_varies

    def orm() -> int:
        channels = ["occlusion", "roughness", "metallic"] + (["specular"] if specular_varies else [])
        pixels = quantize(np.concatenate([channel_values(baked, channel) for channel in channels], axis=2))
        return texture("orm", pixels, "data")

    if metallic is None or roughness is None:
        pbr["metallicFactor"], pbr["roughnessFactor"] = 1.0, 1.0
        pbr["metallicRoughnessTexture"] = {"index": orm()}
    else:
        pbr["metallicFactor"], pbr["roughnessFactor"] = round(metallic[0], 6), round(roughness[0], 6)
    material["pbrMetallicRoughness"] = pbr
    if orm_needed and not _is(occlusion, 1.0):
        material["occlusionTexture"] = {"index": orm(), "strength": 1.0}
    flat_normal = baked.constant("normal")
    if flat_normal is None or max(abs(a - b) for a, b in zip(flat_normal, (0.0, 0.0, 1.0))) > 0.5 / 255.0:
        normals = unit_vectors(channel_values(baked, "normal"))
        material["normalTexture"] = {"index": texture("normal", quantize(normals * 0.5 + 0.5), "data"), "scale": 1.0}
        result.needs_tangents = True

    if "height" in description.connected:
        # The normal texture already holds the height's bump (baked as the preview bumps it); the height itself
        # goes beside the file for tools that displace or do parallax.
        result.side_images["height"] = quantize(channel_values(baked, "height"))
        material["extras"] = {"height": {"scale": round(description.height_scale, 6),
                                         "midLevel": round(description.height_mid_level, 6)}}

    extensions: dict[str, Any] = dict(material.get("extensions", {}))
    emissive = baked.constant("emissive")
    _emissive(material, extensions, np.asarray(emissive) if emissive is not None else channel_values(baked, "emissive"), texture, baked)
    if specular_varies:
        extensions["KHR_materials_specular"] = {"specularFactor": 1.0, "specularTexture": {"index": orm()}}
    elif not _is(specular, 1.0):
        assert specular is not None
        extensions["KHR_materials_specular"] = {"specularFactor": round(specular[0], 6)}
    surface_extensions(result, baked, texture, extensions)
    if extensions:
        material["extensions"] = extensions
        result.extensions.extend(name for name in sorted(extensions) if name not in result.extensions)
    _alpha(material, alpha_mode, description.alpha_cutoff)
    return result


def _emissive(material: dict[str, Any], extensions: dict[str, Any], radiance: np.ndarray, texture: Any, baked: BakedMaterial) -> None:
    """Emitted radiance ((3,) constant or (H, W, 3)) as emissiveFactor/emissiveTexture normalised by its peak M,
    with KHR_materials_emissive_strength = M when M > 1."""
    if radiance.ndim == 1:
        peak = float(max(radiance))
        if peak > 0.0:
            scale = max(peak, EMISSIVE_LIMIT)
            material["emissiveFactor"] = [round(float(c) / scale, 6) for c in radiance]
            if scale > EMISSIVE_LIMIT:
                extensions["KHR_materials_emissive_strength"] = {"emissiveStrength": round(scale, 6)}
        return
    covered = baked.coverage > 0.0
    peak = float(radiance[covered].max()) if covered.any() else 0.0
    scale = max(peak, EMISSIVE_LIMIT)
    material["emissiveFactor"] = [1.0, 1.0, 1.0]
    material["emissiveTexture"] = {"index": texture("emissive", quantize(encode_srgb(radiance / scale)), "srgb")}
    if scale > EMISSIVE_LIMIT:
        extensions["KHR_materials_emissive_strength"] = {"emissiveStrength": round(scale, 6)}


def _alpha(material: dict[str, Any], alpha_mode: str, cutoff: float) -> None:
    if alpha_mode != "OPAQUE":
        material["alphaMode"] = alpha_mode
    if alpha_mode == "MASK":
        material["alphaCutoff"] = round(cutoff, 6)


# The document ---------------------------------------------------------------------------------


class _Buffer:
    """The binary buffer being assembled: 4-byte aligned views."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict[str, Any]] = []

    def add(self, payload: bytes, target: int | None = None) -> int:
        while len(self.data) % 4:
            self.data.append(0)
        view: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload)}
        if target is not None:
            view["target"] = target
        self.data.extend(payload)
        self.views.append(view)
        return len(self.views) - 1


def _png_bytes(pixels: np.ndarray, color_space: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="vpl-gltf-") as folder:
        path = write_image(Path(folder) / "image.png", pixels, color_space)
        return path.read_bytes()


def build_document(baked: BakedMaterial, mesh: Any, name: str, embed_images: bool, image_uri: Any = None) -> tuple[dict[str, Any], bytes, dict[str, bytes]]:
    """(glTF JSON, the binary buffer, PNG bytes by image name) for `mesh` with `baked`; images written beside
    the file rather than referenced as textures are keyed `side:<name>`."""
    from vpl_core.version import version

    gltf_material = build_material(baked, name, mesh_thickness(np.asarray(mesh.positions)))
    for note in gltf_material.notes:
        if note not in baked.notes:
            baked.notes.append(note)
    for image_name in gltf_material.side_images:
        gltf_material.material["extras"][image_name]["uri"] = image_uri(image_name) if image_uri is not None else f"{image_name}.png"
    buffer = _Buffer()
    accessors: list[dict[str, Any]] = []

    def accessor(values: np.ndarray, kind: str, component: int, target: int, bounds: bool = False) -> int:
        view = buffer.add(np.ascontiguousarray(values).tobytes(), target)
        entry: dict[str, Any] = {"bufferView": view, "componentType": component, "count": int(values.shape[0]), "type": kind}
        if bounds:
            entry["min"] = [float(v) for v in values.min(axis=0)]
            entry["max"] = [float(v) for v in values.max(axis=0)]
        accessors.append(entry)
        return len(accessors) - 1

    positions = np.asarray(mesh.positions, dtype=np.float32)
    normals = unit_vectors(np.asarray(mesh.normals, dtype=np.float32)).astype(np.float32)
    texcoords = np.asarray(mesh.texcoords, dtype=np.float32).copy()
    texcoords[:, 1] = 1.0 - texcoords[:, 1]
    attributes = {
        "POSITION": accessor(positions, "VEC3", _FLOAT, _ARRAY_BUFFER, bounds=True),
        "NORMAL": accessor(normals, "VEC3", _FLOAT, _ARRAY_BUFFER),
    }
    if gltf_material.images:  # texture coordinates only when a texture reads them (else: unused)
        attributes["TEXCOORD_0"] = accessor(texcoords, "VEC2", _FLOAT, _ARRAY_BUFFER)
    if gltf_material.needs_tangents:
        tangents = np.asarray(mesh.tangents, dtype=np.float32).copy()
        tangents[:, :3] = unit_vectors(tangents[:, :3])
        tangents[:, 3] = np.where(tangents[:, 3] < 0.0, -1.0, 1.0)
        attributes["TANGENT"] = accessor(tangents, "VEC4", _FLOAT, _ARRAY_BUFFER)
    indices = np.asarray(mesh.indices).reshape(-1)
    if int(indices.max(initial=0)) < 65535:
        index_accessor = accessor(indices.astype(np.uint16), "SCALAR", _UNSIGNED_SHORT, _ELEMENT_ARRAY_BUFFER)
    else:
        index_accessor = accessor(indices.astype(np.uint32), "SCALAR", _UNSIGNED_INT, _ELEMENT_ARRAY_BUFFER)

    pngs = {image_name: _png_bytes(pixels, gltf_material.color_spaces[image_name]) for image_name, pixels in gltf_material.images.items()}
    images = []
    side = {image_name: _png_bytes(pixels, "data") for image_name, pixels in gltf_material.side_images.items()}
    for image_name, data in pngs.items():
        if embed_images:
            images.append({"name": image_name, "mimeType": "image/png", "bufferView": buffer.add(data)})
        else:
            images.append({"name": image_name, "uri": image_uri(image_name)})
    while len(buffer.data) % 4:
        buffer.data.append(0)

    document: dict[str, Any] = {
        "asset": {"version": "2.0", "generator": f"VPL material editor {version()}"},
        "scene": 0,
        "scenes": [{"name": name, "nodes": [0]}],
        "nodes": [{"name": name, "mesh": 0}],
        "meshes": [{"name": mesh.name, "primitives": [{"attributes": attributes, "indices": index_accessor, "material": 0, "mode": 4}]}],
        "materials": [gltf_material.material],
        "accessors": accessors,
        "bufferViews": buffer.views,
        "buffers": [{"byteLength": len(buffer.data)}],
    }
    if images:
        document["images"] = images
        document["samplers"] = [{"magFilter": _LINEAR, "minFilter": _LINEAR_MIPMAP_LINEAR, "wrapS": _REPEAT, "wrapT": _REPEAT}]
        document["textures"] = [{"sampler": 0, "source": index} for index in range(len(images))]
    if gltf_material.extensions:
        document["extensionsUsed"] = list(gltf_material.extensions)
    return document, bytes(buffer.data), {**pngs, **{f"side:{image_name}": data for image_name, data in side.items()}}


def export_gltf(baked: BakedMaterial, mesh: Any, path: str | os.PathLike[str], name: str = "material") -> list[Path]:
    """Write `path` (.glb: one file; .gltf: with `<stem>.bin` and `<stem>_<image>.png`); returns the files written."""
    import pygltflib

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".glb", ".gltf"):
        raise ExportError(f"{target}: a glTF file ends in .glb or .gltf")
    binary = suffix == ".glb"
    stem = target.stem
    document, data, pngs = build_document(baked, mesh, name, embed_images=binary, image_uri=lambda image: f"{stem}_{image}.png")
    if not binary:
        document["buffers"][0]["uri"] = f"{stem}.bin"
    with warnings.catch_warnings():
        # dataclasses_json warns about every optional field an image leaves out (uri or bufferView).
        warnings.simplefilter("ignore", RuntimeWarning)
        gltf = pygltflib.GLTF2().from_dict(document)
    written = []
    for key in [key for key in pngs if key.startswith("side:")]:  # beside the file in both forms
        image_name = key.removeprefix("side:")
        image_path = target.parent / f"{stem}_{image_name}.png"
        write_atomically(image_path, pngs.pop(key))
        written.append(image_path)
    if binary:
        gltf.set_binary_blob(data)
        write_atomically(target, b"".join(gltf.save_to_bytes()))
        written.append(target)
    else:
        folder = target.parent
        write_atomically(folder / f"{stem}.bin", data)
        written.append(folder / f"{stem}.bin")
        for image_name, png in pngs.items():
            image_path = folder / f"{stem}_{image_name}.png"
            write_atomically(image_path, png)
            written.append(image_path)
        write_atomically(target, (gltf.to_json(indent=2) + "\n").encode("utf-8"))
        written.append(target)
    return written


# Reading a material back ----------------------------------------------------------------------


def material_graph(path: str | os.PathLike[str]) -> MaterialGraph:
    """The first material of a `.gltf` as an editor graph: Texture Parameters and plain samples into a Surface Output.

    The inverse of `build_material` for what it writes (factors, one texture
    per field, the ORM image, the normal map with its scale, emission with
    its strength, specular, alpha mode and cutoff); images are referenced by
    absolute path. Used to check a bake by rendering its textures (tests,
    docs/interchange.md) and to look at an exported material in the editor.
    ExportError for a file it cannot read.
    """
    import json

    from app.material.graph import MaterialGraph
    from vpl_core.external_files import read_external

    source = Path(path)
    try:
        document = json.loads(read_external(source, "gltf").decode("utf-8"))
        material = document["materials"][0]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as error:
        raise ExportError(f"{source}: not a glTF file with a material ({error})") from None
    graph = MaterialGraph()
    output = graph.add_node("surface_output", (600.0, 0.0)).id
    samples: dict[int, str] = {}
    row = [0.0]

    def image_path(index: int) -> str:
        try:
            image = document["images"][document["textures"][index]["source"]]
            return str((source.parent / image["uri"]).resolve())
        except (KeyError, IndexError, TypeError) as error:
            raise ExportError(f"{source}: texture {index} has no image file ({error})") from None

    def sample(info: dict[str, Any], name: str, color_space: str) -> str:
        index = int(info["index"])
        if index not in samples:
            parameter = graph.add_node("texture_parameter", (0.0, row[0]), {"name": name, "image": image_path(index), "color_space": color_space})
            node = graph.add_node("sample_texture", (200.0, row[0]))
            graph.connect(parameter.id, "out", node.id, "texture")
            samples[index] = node.id
            row[0] += 150.0
        return samples[index]

    def set_value(port: str, value: Any) -> None:
        graph.nodes[output].properties[port] = value

    pbr = material.get("pbrMetallicRoughness", {})
    alpha_mode = material.get("alphaMode", "OPAQUE")
    factor = [float(c) for c in pbr.get("baseColorFactor", [1.0, 1.0, 1.0, 1.0])]
    if "baseColorTexture" in pbr:
        base = sample(pbr["baseColorTexture"], "base_color", "srgb")
        graph.connect(base, "rgba", output, "base_color")
        if alpha_mode != "OPAQUE":
            graph.connect(base, "a", output, "opacity")
    else:
        set_value("base_color", tuple(factor[:3]) + (1.0,))
        set_value("opacity", factor[3] if alpha_mode != "OPAQUE" else 1.0)
    if "metallicRoughnessTexture" in pbr:
        orm = sample(pbr["metallicRoughnessTexture"], "orm", "linear")
        unpack = graph.add_node("orm_unpack", (400.0, 0.0)).id
        graph.connect(orm, "rgba", unpack, "orm")
        graph.connect(unpack, "roughness", output, "roughness")
        graph.connect(unpack, "metallic", output, "metallic")
    else:
        set_value("metallic", float(pbr.get("metallicFactor", 1.0)))
        set_value("roughness", float(pbr.get("roughnessFactor", 1.0)))
    if "occlusionTexture" in material:
        orm = sample(material["occlusionTexture"], "orm", "linear")
        graph.connect(orm, "r", output, "ambient_occlusion")
    if "normalTexture" in material:
        normal = sample(material["normalTexture"], "normal", "linear")
        normal_map = graph.add_node("normal_map", (400.0, 300.0), {"strength": float(material["normalTexture"].get("scale", 1.0))}).id
        graph.connect(normal, "rgb", normal_map, "tangent_normal")
        graph.connect(normal_map, "normal_out", output, "normal")
    extensions = material.get("extensions", {})
    strength = float(extensions.get("KHR_materials_emissive_strength", {}).get("emissiveStrength", 1.0))
    emissive_factor = [float(c) for c in material.get("emissiveFactor", [0.0, 0.0, 0.0])]
    if "emissiveTexture" in material:
        emissive = sample(material["emissiveTexture"], "emissive", "srgb")
        graph.connect(emissive, "rgba", output, "emissive_color")
    else:
        set_value("emissive_color", tuple(emissive_factor) + (1.0,))
    set_value("emissive_strength", strength)
    specular = extensions.get("KHR_materials_specular", {})
    if "specularTexture" in specular:
        graph.connect(sample(specular["specularTexture"], "orm", "linear"), "a", output, "specular")
    else:
        set_value("specular", float(specular.get("specularFactor", 1.0)))
    _read_extensions(extensions, sample, graph, output, set_value)
    if alpha_mode == "MASK":
        set_value("alpha_clip", float(material.get("alphaCutoff", 0.5)))
    return graph


def _read_extensions(extensions: dict[str, Any], sample: Any, graph: MaterialGraph, output: str, set_value: Any) -> None:
    """The KHR extensions `build_material` writes for a Surface Output, back onto its extension inputs: factors, and the
    textures it writes (clearcoat R/G, transmission R, sheen colour and roughness); a texture with a factor other
    than 1 is scaled by a Multiply node."""

    def factor_or_texture(entry: dict[str, Any], factor_key: str, texture_key: str, default: float, name: str,
                          port: str, image: str, color_space: str) -> None:
        factor = float(entry.get(factor_key, default))
        if texture_key not in entry:
            set_value(port, factor)
            return
        node = sample(entry[texture_key], image, color_space)
        if factor == 1.0:
            graph.connect(node, name, output, port)
            return
        scale = graph.add_node("multiply", (400.0, 600.0), {"b": factor}).id
        graph.connect(node, name, scale, "a")
        graph.connect(scale, "out", output, port)

    clearcoat = extensions.get("KHR_materials_clearcoat")
    if clearcoat is not None:
        factor_or_texture(clearcoat, "clearcoatFactor", "clearcoatTexture", 0.0, "r", "clearcoat", "clearcoat", "linear")
        factor_or_texture(clearcoat, "clearcoatRoughnessFactor", "clearcoatRoughnessTexture", 0.0, "g", "clearcoat_roughness",
                          "clearcoat", "linear")
        if "clearcoatNormalTexture" in clearcoat:
            normal = sample(clearcoat["clearcoatNormalTexture"], "clearcoat_normal", "linear")
            normal_map = graph.add_node("normal_map", (400.0, 450.0), {"strength": float(clearcoat["clearcoatNormalTexture"].get("scale", 1.0))}).id
            graph.connect(normal, "rgb", normal_map, "tangent_normal")
            graph.connect(normal_map, "normal_out", output, "clearcoat_normal")
    sheen = extensions.get("KHR_materials_sheen")
    if sheen is not None:
        color = [float(c) for c in sheen.get("sheenColorFactor", [0.0, 0.0, 0.0])]
        if "sheenColorTexture" in sheen:
            graph.connect(sample(sheen["sheenColorTexture"], "sheen_color", "srgb"), "rgba", output, "sheen_color")
        else:
            set_value("sheen_color", tuple(color) + (1.0,))
        factor_or_texture(sheen, "sheenRoughnessFactor", "sheenRoughnessTexture", 0.0, "a", "sheen_roughness",
                          "sheen_roughness", "linear")
    transmission = extensions.get("KHR_materials_transmission")
    if transmission is not None:
        factor_or_texture(transmission, "transmissionFactor", "transmissionTexture", 0.0, "r", "transmission",
                          "transmission", "linear")
    volume = extensions.get("KHR_materials_volume")
    if volume is not None:
        factor_or_texture(volume, "thicknessFactor", "thicknessTexture", 0.0, "g", "thickness", "thickness", "linear")
        if "attenuationDistance" in volume:
            set_value("attenuation_distance", float(volume["attenuationDistance"]))
            set_value("attenuation_color", tuple(float(c) for c in volume.get("attenuationColor", [1.0, 1.0, 1.0])) + (1.0,))
    if "KHR_materials_dispersion" in extensions:
        set_value("dispersion", float(extensions["KHR_materials_dispersion"].get("dispersion", 0.0)))
    if "KHR_materials_ior" in extensions:
        set_value("ior", float(extensions["KHR_materials_ior"].get("ior", 1.5)))
    iridescence = extensions.get("KHR_materials_iridescence")
    if iridescence is not None:
        set_value("iridescence", float(iridescence.get("iridescenceFactor", 0.0)))
        set_value("iridescence_ior", float(iridescence.get("iridescenceIor", 1.3)))
        set_value("iridescence_thickness", float(iridescence.get("iridescenceThicknessMaximum", 400.0)))
    anisotropy = extensions.get("KHR_materials_anisotropy")
    if anisotropy is not None:
        set_value("anisotropy_strength", float(anisotropy.get("anisotropyStrength", 0.0)))
        set_value("anisotropy_rotation", float(anisotropy.get("anisotropyRotation", 0.0)))
