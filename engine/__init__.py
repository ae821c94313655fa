"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds, chapter by chapter.

The modules are generated from the book's notebooks by tools/export_engine.py; this file only
gathers the public names. Submodules: engine.tensor (the Tensor, its ops and the sweep),
engine.check (finite differences, gradcheck, PyTorch witnesses), engine.nn (MLP, cross_entropy),
engine.optim (SGD), engine.data (the spiral).
"""
from .check import gradcheck, numerical_gradient
from .nn import MLP, cross_entropy
from .optim import SGD
from .tensor import Op, Tensor, backpropagate, topological_order
