from ._unavailable import unavailable_module_getattr

__getattr__ = unavailable_module_getattr(__name__)
