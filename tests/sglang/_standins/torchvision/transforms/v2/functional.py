from ..._unavailable import unavailable_module_getattr
from .. import InterpolationMode  # noqa: F401

__getattr__ = unavailable_module_getattr(__name__)
