"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds, chapter by chapter.

The modules are generated from the book's notebooks by tools/export_engine.py; this file only
gathers the public names. Submodules: engine.tensor (the Tensor, its ops and the sweep),
engine.check (finite differences, gradcheck, PyTorch witnesses, the op catalogue), engine.nn (MLP,
cross_entropy, conv2d, max_pool2d),
engine.optim (SGD, Adam), engine.data (the spiral), engine.memory (checkpoint, ArrayCensus),
engine.viz (draw; imported on its own since it needs graphviz).
"""
from .check import gradcheck, numerical_gradient
from .memory import ArrayCensus, checkpoint
from .nn import MLP, conv2d, cross_entropy, max_pool2d
from .optim import SGD, Adam
from .tensor import Op, Tensor, backpropagate, grad, hvp, jvp, no_grad, topological_order
