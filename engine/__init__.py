"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds, chapter by chapter.

The modules are generated from the book's notebooks by tools/export_engine.py; this file only
gathers the public names, which the book imports from here. engine.viz (draw) is imported on its
own, since it needs graphviz.
"""
from .catalogue import OP_CASES, case
from .check import finite_difference_error, gradcheck, numerical_gradient, relative_error
from .memory import ArrayCensus, checkpoint
from .nn import MLP, conv2d, cross_entropy, max_pool2d
from .optim import SGD, Adam, Optimizer
from .core import Op, Tensor, backpropagate, enable_grad, no_grad, topological_order, zero_grad
from .forward import jvp
from .transforms import grad, hvp
from .witness import torch_check, torch_error

__all__ = [
    "Adam", "ArrayCensus", "MLP", "OP_CASES", "Op", "Optimizer", "SGD", "Tensor",
    "backpropagate", "case", "checkpoint", "conv2d", "cross_entropy", "enable_grad", "finite_difference_error",
    "grad", "gradcheck", "hvp", "jvp", "max_pool2d", "no_grad", "numerical_gradient",
    "relative_error", "topological_order", "torch_check", "torch_error", "zero_grad",
]
