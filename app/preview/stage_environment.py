"""A stage's environment as the renderer takes it: prefiltered maps and the split-sum table.

`Stage` (`app.preview.stage`) is plain data and names its environment;
this module turns that name into the renderer's `EnvironmentMaps` and BRDF
table, so the stage never imports the renderer (which imports the stage's
defaults). The image-based-lighting components are optional for a host:
when they are missing, `prepare_environment` raises `ValueError` with a
one-line message like any other environment that cannot be loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.preview.renderer import EnvironmentMaps
from app.preview.stage import NO_ENVIRONMENT

if TYPE_CHECKING:
    from app.preview.ibl_assets import PreparedEnvironment


def prepare_environment(environment: str) -> tuple[EnvironmentMaps, np.ndarray] | None:
    """(EnvironmentMaps, BRDF table) of a stage environment, prefiltered in the calling thread (or taken
    from the cache); None for "none". ValueError with a one-line message when it cannot be loaded."""
    if environment == NO_ENVIRONMENT:
        return None
    try:  # optional components: imported here so that a host without them still draws
        from app.preview.environment import EnvironmentLoadError
        from app.preview.ibl_assets import PrefilterJob
    except ImportError:
        raise ValueError(f"cannot use the environment {environment!r}: image-based lighting is not available") from None
    try:
        prepared = PrefilterJob(environment).run()
    except (EnvironmentLoadError, OSError, ValueError) as error:
        raise ValueError(str(error)) from None
    except ImportError as error:  # a component the IBL code needs is missing from this installation
        raise ValueError(f"cannot use the environment {environment!r}: image-based lighting is not available ({error})") from None
    return environment_maps(prepared), prepared.brdf_lut


def environment_maps(prepared: PreparedEnvironment) -> EnvironmentMaps:
    """The renderer's `EnvironmentMaps` of a prepared environment (`app.preview.ibl_assets`)."""
    return EnvironmentMaps(tuple(prepared.assets.specular), prepared.assets.irradiance)
