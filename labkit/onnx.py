"""labkit.onnx.export(model, example_inputs, path): the model as an ONNX file (as torch.onnx)."""
from .jit.onnx import export

__all__ = ["export"]
