"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds, chapter by chapter.

The modules are generated from the book's notebooks by tools/export_engine.py; this file only
gathers the public names, which the book imports from here. engine.viz (draw) is imported on its
own, since it needs graphviz.
"""
from .check import gradcheck, numerical_gradient
from .memory import ArrayCensus, checkpoint
from .nn import MLP, conv2d, cross_entropy, max_pool2d
from .optim import SGD, Adam
from .tensor import (Op, Tensor, backpropagate, grad, hvp, jvp, no_grad, topological_order,
                     zero_grad)

__all__ = [
    "Adam", "ArrayCensus", "MLP", "Op", "SGD", "Tensor", "backpropagate", "checkpoint",
    "conv2d", "cross_entropy", "grad", "gradcheck", "hvp", "jvp", "max_pool2d", "no_grad",
    "numerical_gradient", "topological_order", "zero_grad",
]
