"""Small models for test_cli.py, named on the command line as cli_models:NAME."""
import torch
from torch import nn

RAISE_ON_IMPORT = False


class Pinned(nn.Module):
    """Requires its height to be 8 (torch._assert): a dynamic-dim spec on dim 2 is violated."""

    def forward(self, x):
        torch._assert(x.size(2) == 8, "height must be 8")
        return x.flatten(1)


def cat2():
    """x and y joined on dim 1: with duck sizing their equal dim-0 examples share a symbol."""
    class Cat(nn.Module):
        def forward(self, x, y):
            return torch.cat([x, y], 1)
    return Cat()


def broken():
    """A model that fails at any input."""
    class Broken(nn.Module):
        def forward(self, x):
            return x @ torch.ones(3, 3)[:, :1].t()  # (n, 4) @ (1, 3): mismatched
    return Broken()


def needs_args(width):
    raise TypeError("unreachable: this factory has a required argument, so it is exported as a function")


def factory_fails():
    raise RuntimeError("no weights here")


NOT_CALLABLE = 3


def strided():
    """x[:, ::2] - x[:, 1::2]: torch.export's program guards (its 0/1 tests on the halves) narrow dim 1."""
    class Strided(nn.Module):
        def forward(self, x):
            return x[:, ::2] - x[:, 1::2]
    return Strided()


def nonzero_rows(x):
    """A plain function (not a module), with a data-dependent output: its nonzero indices."""
    return x.nonzero(), x.t()
