"""Autodiff from Scratch: the reverse-mode autodiff engine that the book builds, chapter by chapter.

The modules are generated from the book's notebooks by tools/export_engine.py; this file only
gathers the public names, which the book imports from here. engine.viz (draw) is imported on its
own, since it needs graphviz.
"""
from . import tensor as _tensor
from . import transforms as _transforms

# Temporary, until the chapter 13-15 notebooks (engine/memory.py comes from chapter 14),
# benchmarks/run.py and autograder/test_tasks.py import the transformations from
# engine.transforms: the names that moved there stay reachable as engine.tensor.NAME.
for _name in ("Dual", "ForwardMode", "as_dual", "dual_call", "forward_mode", "tape_call",
              "tangent_array", "jvp", "jacobian_forward", "jacobian_reverse", "grad",
              "direction_array", "hvp", "hvp_forward_over_reverse", "gradient_of_dual"):
    setattr(_tensor, _name, getattr(_transforms, _name))

from .catalogue import OP_CASES, case  # noqa: E402
from .check import finite_difference_error, gradcheck, numerical_gradient, relative_error
from .memory import ArrayCensus, checkpoint
from .nn import MLP, conv2d, cross_entropy, max_pool2d
from .optim import SGD, Adam, Optimizer
from .tensor import Op, Tensor, backpropagate, no_grad, topological_order, zero_grad
from .transforms import grad, hvp, jvp
from .witness import torch_check, torch_error

__all__ = [
    "Adam", "ArrayCensus", "MLP", "OP_CASES", "Op", "Optimizer", "SGD", "Tensor",
    "backpropagate", "case", "checkpoint", "conv2d", "cross_entropy", "finite_difference_error",
    "grad", "gradcheck", "hvp", "jvp", "max_pool2d", "no_grad", "numerical_gradient",
    "relative_error", "topological_order", "torch_check", "torch_error", "zero_grad",
]
