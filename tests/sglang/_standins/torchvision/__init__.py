"""Import-time stand-in for torchvision, used only by the SGLang test suite.

PyPI's torchvision wheels are CUDA builds that cannot load beside the CPU build of torch 2.13.0 the SGLang test
environment uses ("operator torchvision::nms does not exist"). SGLang imports torchvision at module level only in its
multimodal code (model configs and image processors), which the import chain of ``OpenAIServingChat`` and of the HTTP
server reaches; none of the code under test calls it. tests/sglang/conftest.py puts this directory on ``sys.path``
only when no real torchvision is importable. Anything actually called raises.
"""

from ._unavailable import unavailable_module_getattr

__version__ = "0.0.0+longcat.standin"
__getattr__ = unavailable_module_getattr(__name__)
