"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds.

The modules are generated from the book's notebooks by the course's exporter
(course/export.py); this file only gathers the public names, which the book imports from
here. engine.viz (draw) is imported on its own, since it needs graphviz. The course's
verification machinery (the op catalogue, the PyTorch witness, the bug museum, the
exercise checkers) is the package `course`, which imports this one; nothing here imports
it, nor PyTorch.
"""

from .check import gradcheck, numerical_gradient, relative_error
from .core import (
    backpropagate,
    enable_grad,
    no_grad,
    Op,
    Tensor,
    topological_order,
    zero_grad,
)
from .forward import jvp
from .memory import ArrayCensus, checkpoint
from .nn import conv2d, cross_entropy, max_pool2d, MLP
from .optim import Adam, Optimizer, SGD
from .transforms import grad, hvp


__all__ = [
    "Adam",
    "ArrayCensus",
    "MLP",
    "Op",
    "Optimizer",
    "SGD",
    "Tensor",
    "backpropagate",
    "checkpoint",
    "conv2d",
    "cross_entropy",
    "enable_grad",
    "grad",
    "gradcheck",
    "hvp",
    "jvp",
    "max_pool2d",
    "no_grad",
    "numerical_gradient",
    "relative_error",
    "topological_order",
    "zero_grad",
]
