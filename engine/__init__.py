"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds, chapter by chapter.

The modules are generated from the book's notebooks by tools/export_engine.py; this file only
gathers the public names.
"""
from .check import numerical_gradient
from .tensor import Op, Tensor, backpropagate, topological_order
